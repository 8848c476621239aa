import { z } from 'zod';
import { CAPTURE_KINDS, MAX_PROGRAM_CHARS, parseArgSpec, type ArgSpec, type CaptureKind } from '../../model/jobs';

/**
 * The lab file format (docs/labs.md): a JSON file in the repository's `labs/` folder naming the
 * programs a room starts with, the captures it offers to run, and the steps a student works
 * through, each checked from the room's own data by one of the {@link CheckKind}s.
 */

/** The closed set of checks a step may use; each reads only the room's data. */
export const CheckKind = {
  captureDone: 'capture-done',
  mappingComplete: 'mapping-complete',
  spillAnnotated: 'spill-annotated',
  gatePassed: 'gate-passed',
} as const;
export type CheckKind = (typeof CheckKind)[keyof typeof CheckKind];
export const CHECK_KINDS = Object.values(CheckKind) as [CheckKind, ...CheckKind[]];

/** Checks about one person's own work, evaluated for each member; the others hold for the room. */
export const PER_MEMBER_CHECKS: readonly CheckKind[] = [CheckKind.spillAnnotated];

/** Most programs, captures and steps a lab may hold. */
export const MAX_LAB_PROGRAMS = 8;
export const MAX_LAB_CAPTURES = 8;
export const MAX_LAB_STEPS = 20;

const Id = z.string().regex(/^[a-z0-9][a-z0-9.-]{0,63}$/, 'an id is 1–64 of a-z, 0-9, "." and "-", starting with a letter or digit');
const Text = (max: number) => z.string().trim().min(1).max(max);

/** An argument written as the Capture panel shows it: `bf16[8192,128]`. */
const ArgText = z.string().max(64).transform((s, ctx): ArgSpec => {
  const spec = parseArgSpec(s);
  if ('error' in spec) {
    ctx.addIssue({ code: 'custom', message: spec.error });
    return z.NEVER;
  }
  return spec;
});

const CaptureSpec = z.strictObject({
  id: Id,
  /** A key of `programs`. */
  program: Id,
  entry: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'entry must be a Python identifier'),
  args: z.array(ArgText).max(16),
  capture: z.array(z.enum(CAPTURE_KINDS)).min(1).max(CAPTURE_KINDS.length),
  /** XLA flags the capture runs with, one line. */
  xlaFlags: z.string().max(1024).regex(/^[^\n\r\0]*$/, 'xlaFlags must be one line').default(''),
  timeoutS: z.number().int().min(1).max(3600).default(300),
});
export type LabCapture = z.infer<typeof CaptureSpec>;

const Tolerance = z.number().min(0).max(1);

export const LabCheckSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal(CheckKind.captureDone), capture: Id }),
  z.strictObject({ kind: z.literal(CheckKind.mappingComplete), capture: Id, primitive: z.string().regex(/^[a-z_]{1,40}$/).default('dot_general') }),
  z.strictObject({
    kind: z.literal(CheckKind.spillAnnotated), capture: Id,
    /** The spilled value's dimensions, e.g. `[8192, 8192]`. */
    shape: z.array(z.number().int().min(0).max(1 << 30)).min(1).max(8),
    /** How far the annotation's byte estimate may be from the index's size: 0.2 is within 20%. */
    tolerance: Tolerance.default(0.2),
  }),
  z.strictObject({ kind: z.literal(CheckKind.gatePassed), capture: Id }),
]);
export type LabCheck = z.infer<typeof LabCheckSchema>;

const StepSchema = z.strictObject({
  id: Id,
  title: Text(120),
  /** What the student is asked; plain text, shown as text. */
  question: Text(2000),
  check: LabCheckSchema,
});
export type LabStep = z.infer<typeof StepSchema>;

export const LabSchema = z.strictObject({
  id: Id,
  /** The course's name for it, e.g. `LAB·2.1`. */
  code: Text(32),
  title: Text(120),
  summary: Text(2000),
  /** Program name → Python source; the room's `programs` get them. */
  programs: z.record(Id, z.string().min(1).max(MAX_PROGRAM_CHARS)),
  captures: z.array(CaptureSpec).min(1).max(MAX_LAB_CAPTURES),
  steps: z.array(StepSchema).min(1).max(MAX_LAB_STEPS),
}).superRefine((lab, ctx) => {
  const programs = Object.keys(lab.programs);
  if (programs.length === 0 || programs.length > MAX_LAB_PROGRAMS) ctx.addIssue({ code: 'custom', path: ['programs'], message: `a lab has 1 to ${MAX_LAB_PROGRAMS} programs` });
  const captures = new Set<string>();
  lab.captures.forEach((c, i) => {
    if (captures.has(c.id)) ctx.addIssue({ code: 'custom', path: ['captures', i, 'id'], message: `capture id ${c.id} is used twice` });
    captures.add(c.id);
    if (!(c.program in lab.programs)) ctx.addIssue({ code: 'custom', path: ['captures', i, 'program'], message: `no program named ${c.program}` });
  });
  const steps = new Set<string>();
  lab.steps.forEach((s, i) => {
    if (steps.has(s.id)) ctx.addIssue({ code: 'custom', path: ['steps', i, 'id'], message: `step id ${s.id} is used twice` });
    steps.add(s.id);
    const cap = lab.captures.find((c) => c.id === s.check.capture);
    if (!cap) {
      ctx.addIssue({ code: 'custom', path: ['steps', i, 'check', 'capture'], message: `no capture named ${s.check.capture}` });
      return;
    }
    const needs = NEEDS[s.check.kind].filter((k) => !cap.capture.includes(k));
    if (needs.length > 0) ctx.addIssue({ code: 'custom', path: ['steps', i, 'check'], message: `${s.check.kind} needs capture ${cap.id} to capture ${needs.join(', ')}` });
  });
});
export type Lab = z.infer<typeof LabSchema>;

/** What a capture must produce for a check on it to be able to pass. */
export const NEEDS: Readonly<Record<CheckKind, readonly CaptureKind[]>> = {
  'capture-done': [],
  'mapping-complete': ['jaxpr', 'stablehlo', 'hlo-opt'],
  'spill-annotated': ['hlo-opt'],
  'gate-passed': ['hlo-opt', 'trace'],
};

/** A lab file that is not valid JSON or not a lab; `file` names it, the message says where. */
export class LabFormatError extends Error {
  override name = 'LabFormatError';
  constructor(readonly file: string, message: string) {
    super(`${file}: ${message}`);
  }
}

/** Reads one lab file's text; throws {@link LabFormatError} naming the first problems. */
export function parseLab(file: string, text: string): Lab {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new LabFormatError(file, `not JSON (${(e as Error).message})`);
  }
  const parsed = LabSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(lab)'}: ${i.message}`);
    throw new LabFormatError(file, issues.join('; '));
  }
  return parsed.data;
}
