import { DocumentKind } from '../../model/document';
import { diffModules } from '../diff/diff';
import { alignLines } from './align';
import { normalizerOf } from './normalize';

/** A text cut into lines, with each line's start offset. */
export interface Lines {
  readonly text: string;
  readonly lines: readonly string[];
  /** Offset at which each line starts. */
  readonly starts: readonly number[];
}

/** Cuts a text into lines (`\n`-separated; a `\r` stays in its line). */
export function linesOf(text: string): Lines {
  const lines = text.split('\n');
  const starts: number[] = [];
  let at = 0;
  for (const l of lines) {
    starts.push(at);
    at += l.length + 1;
  }
  return { text, lines, starts };
}

/** How each line of the old text is found in the new one: `to[i]` is the new 0-based line, or -1 when it has none. */
export interface LineMap {
  readonly to: Int32Array;
  /**
   * Old lines that hold an instruction the structural diff matched to one whose text differs (a
   * renamed instruction or operand): the annotation then takes the whole line, as the offsets
   * inside it no longer hold.
   */
  readonly instructions: ReadonlySet<number>;
}

const HLO_KINDS: ReadonlySet<string> = new Set([DocumentKind.hlo, DocumentKind.hloOpt]);

/**
 * Which line of `next` stands for each line of `prev`, two dumps of one layer (`kind`). HLO:
 * instructions by the structural diff (`diffModules` pairs: instruction to instruction, and kept
 * fusions), an instruction it found no counterpart for has none; the other lines (computation
 * headers, braces, fusion calls the diff does not pair) by line alignment among themselves. Every other layer by line
 * alignment: equal lines, then lines equal but for the names a re-capture changes. Pure; linear
 * in the texts but for small stretches (see `alignKeys`).
 */
export function mapLines(prev: Lines, next: Lines, kind: DocumentKind): LineMap {
  const normalize = normalizerOf(kind);
  if (!HLO_KINDS.has(kind)) return { to: alignLines(prev.lines, next.lines, normalize), instructions: new Set() };
  const d = diffModules(prev.text, next.text, { kindA: kind, kindB: kind });
  const to = new Int32Array(prev.lines.length).fill(-1);
  const instructions = new Set<number>();
  const taken = new Set<number>();
  const set = (a: number, b: number) => {
    to[a - 1] = b - 1;
    taken.add(b - 1);
    instructions.add(a - 1);
  };
  for (const p of d.pairs) set(p.a.line, p.b.line);
  for (const f of d.fusionsKept) set(f.a.line, f.b.line);
  const removed = new Set(d.removed.map((r) => r.line - 1));
  // The rest (headers, braces, fused parameters, fusion calls the diff does not pair) aligned among themselves.
  const restA: number[] = [];
  const restB: number[] = [];
  for (let i = 0; i < prev.lines.length; i++) if (!instructions.has(i) && !removed.has(i)) restA.push(i);
  for (let j = 0; j < next.lines.length; j++) if (!taken.has(j)) restB.push(j);
  const aligned = alignLines(restA.map((i) => prev.lines[i] as string), restB.map((j) => next.lines[j] as string), normalize);
  aligned.forEach((k, n) => {
    if (k >= 0) to[restA[n] as number] = restB[k] as number;
  });
  return { to, instructions };
}
