import { CAPTURE_KINDS, DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S, parseArgSpec, type ArgSpec, type CaptureKind, type CaptureRequestInput } from '@seam/shared/model';

/** One argument spec the Capture panel could not read, by its position in the list (from 0). */
export interface SpecError {
  readonly index: number;
  readonly text: string;
  readonly message: string;
}

/** The argument specs typed in the panel: the ones read, and an error per one that was not. */
export interface ParsedSpecs {
  readonly specs: readonly ArgSpec[];
  readonly errors: readonly SpecError[];
}

/**
 * Splits the argument field into specs, one per line or comma-separated; commas inside brackets
 * belong to a shape, e.g. `bf16[8192,128], f32[128]` is two specs.
 */
export function splitSpecs(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '[') depth++;
    else if (ch === ']') depth = Math.max(0, depth - 1);
    if ((ch === ',' && depth === 0) || ch === '\n') {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

/** Reads the argument field with the shared parser; never throws. */
export function parseSpecs(text: string): ParsedSpecs {
  const specs: ArgSpec[] = [];
  const errors: SpecError[] = [];
  splitSpecs(text).forEach((part, index) => {
    const r = parseArgSpec(part);
    if ('error' in r) errors.push({ index, text: part, message: r.error });
    else specs.push(r);
  });
  return { specs, errors };
}

/** What the Capture panel holds besides the co-edited program text. */
export interface CaptureForm {
  readonly entry: string;
  readonly args: string;
  readonly capture: readonly CaptureKind[];
  /** Runner name, or '' for any idle runner. */
  readonly runner: string;
  readonly xlaFlags: string;
  readonly timeoutS: number;
}

/** The form a new panel starts with: no arguments, everything but the trace, any runner, 120 s. */
export const EMPTY_FORM: CaptureForm = {
  entry: '',
  args: '',
  capture: ['jaxpr', 'stablehlo', 'hlo', 'hlo-opt', 'cost', 'memory'],
  runner: '',
  xlaFlags: '',
  timeoutS: DEFAULT_TIMEOUT_S,
};

/** The MLP of the capture tests, as "Load the MLP example" fills it in. */
export const MLP_EXAMPLE = {
  program: 'import jax\n\n\ndef mlp(x, w, b):\n    return jax.nn.relu(x @ w + b).mean(axis=-1)\n',
  entry: 'mlp',
  args: 'f32[32,64]\nf32[64,128]\nf32[128]',
} as const;

/** Labels of the capture choices, in the order the panel lists them. */
export const CAPTURE_LABELS: Readonly<Record<CaptureKind, string>> = {
  jaxpr: 'jaxpr',
  stablehlo: 'StableHLO',
  hlo: 'HLO',
  'hlo-opt': 'optimized HLO',
  cost: 'cost analysis',
  memory: 'memory analysis',
  trace: 'profiler trace',
};

/**
 * Builds the capture request from the program and the form, or says what is wrong with it
 * (the first problem, in the words the panel shows).
 */
export function buildRequest(program: string, form: CaptureForm): { request: CaptureRequestInput } | { error: string } {
  if (!program.trim()) return { error: 'The program is empty.' };
  const entry = form.entry.trim();
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(entry)) return { error: 'The entry function must be a Python name, e.g. mlp.' };
  const { specs, errors } = parseSpecs(form.args);
  const first = errors[0];
  if (first) return { error: `Argument ${first.index + 1}: ${first.message}.` };
  const capture = CAPTURE_KINDS.filter((k) => form.capture.includes(k));
  if (capture.length === 0) return { error: 'Choose at least one thing to capture.' };
  if (!Number.isInteger(form.timeoutS) || form.timeoutS < 1 || form.timeoutS > MAX_TIMEOUT_S) return { error: `The timeout must be 1 to ${MAX_TIMEOUT_S} seconds.` };
  if (/[\r\n]/.test(form.xlaFlags)) return { error: 'XLA flags must be one line.' };
  return {
    request: {
      program,
      entry,
      args: specs.map((s) => ({ shape: [...s.shape], dtype: s.dtype })),
      capture,
      ...(form.runner ? { runner: form.runner } : {}),
      options: { xlaFlags: form.xlaFlags.trim(), timeoutS: form.timeoutS, repeats: 3 },
    },
  };
}
