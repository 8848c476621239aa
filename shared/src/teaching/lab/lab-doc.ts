import * as Y from 'yjs';
import { formatArgSpec, type CaptureKind } from '../../model/jobs';
import { RoomKey } from '../../model/room-schema';
import { isPerMember, type LabResults } from './evaluate';
import type { Lab } from './lab-format';

/** Keys of the room document's server-written `lab` map. */
export const LabDocKey = { lab: 'lab', results: 'results' } as const;

/** A lab as a room shows it (the `lab` key's `lab` value): steps and captures, no check parameters beyond their kind. */
export interface LabView {
  readonly id: string;
  readonly code: string;
  readonly title: string;
  readonly summary: string;
  readonly steps: ReadonlyArray<{ readonly id: string; readonly title: string; readonly question: string; readonly kind: string; readonly perMember: boolean }>;
  /** The captures the room offers to run, as capture requests without the program text. */
  readonly captures: ReadonlyArray<{
    readonly id: string; readonly program: string; readonly entry: string; readonly args: readonly string[];
    readonly capture: readonly CaptureKind[]; readonly xlaFlags: string; readonly timeoutS: number;
  }>;
}

/** The view of `lab` a room holds. */
export function labViewOf(lab: Lab): LabView {
  return {
    id: lab.id, code: lab.code, title: lab.title, summary: lab.summary,
    steps: lab.steps.map((s) => ({ id: s.id, title: s.title, question: s.question, kind: s.check.kind, perMember: isPerMember(s) })),
    captures: lab.captures.map((c) => ({ id: c.id, program: c.program, entry: c.entry, args: c.args.map(formatArgSpec), capture: c.capture, xlaFlags: c.xlaFlags, timeoutS: c.timeoutS })),
  };
}

const labMap = (doc: Y.Doc): Y.Map<unknown> => doc.getMap(RoomKey.lab);

/** Puts a lab into a room: its view in `lab`, its programs into `programs` (a program of the same name is replaced), results cleared. */
export function writeLab(doc: Y.Doc, lab: Lab): void {
  const m = labMap(doc);
  m.set(LabDocKey.lab, labViewOf(lab));
  m.delete(LabDocKey.results);
  const programs = doc.getMap<Y.Text>(RoomKey.programs);
  for (const [name, source] of Object.entries(lab.programs)) programs.set(name, new Y.Text(source));
}

/** Writes the latest results. */
export function writeLabResults(doc: Y.Doc, results: LabResults): void {
  labMap(doc).set(LabDocKey.results, results);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The room's lab, or null when none was opened (or the value is not one). */
export function readLabView(doc: Y.Doc): LabView | null {
  const v = labMap(doc).get(LabDocKey.lab);
  return isObject(v) && typeof v['id'] === 'string' && Array.isArray(v['steps']) && Array.isArray(v['captures']) ? (v as unknown as LabView) : null;
}

/** The latest results, or null before the first evaluation. */
export function readLabResults(doc: Y.Doc): LabResults | null {
  const v = labMap(doc).get(LabDocKey.results);
  return isObject(v) && typeof v['labId'] === 'string' && isObject(v['room']) && isObject(v['members']) ? (v as unknown as LabResults) : null;
}
