import type { DocumentKind } from '../../model/document';

/** What a drill question asks. Closed set; the checker of each lives in its own `*-answer.ts`. */
export const DrillAsk = {
  /** "Write the einsum of this dot_general": any equivalent einsum (letters renamed, spaces). */
  einsum: 'einsum',
  /** "Which dims contract": lhs and rhs contracting dimensions, e.g. `[1] x [0]`. */
  contracting: 'contracting',
  /** "Which dims are batch": lhs and rhs batch dimensions, `none` when there are none. */
  batch: 'batch',
  /** "Is this op fused, and into what": the fusion instruction's name, or `no`. */
  fused: 'fused',
  /** "How many bytes does this value move": a size with or without units, within a tolerance. */
  bytes: 'bytes',
} as const;
export type DrillAsk = (typeof DrillAsk)[keyof typeof DrillAsk];
export const DRILL_ASKS: readonly DrillAsk[] = Object.values(DrillAsk);

/** The part of a question every member of the room sees: never the answer. */
export interface DrillQuestion {
  /** Position in the drill, `q1`, `q2`, … */
  readonly id: string;
  readonly ask: DrillAsk;
  /** The whole question as shown, e.g. "Write the einsum of the dot_general `%0` (16×32 · 32×32)." */
  readonly prompt: string;
  /** What the answer box shows as a hint of the expected form, e.g. `ij,jk->ik`. */
  readonly placeholder: string;
  readonly docId: string;
  readonly kind: DocumentKind;
  /** The instruction, SSA value or variable asked about, as the dump names it. */
  readonly subject: string;
  /** 1-based line of the subject's definition, and its span (UTF-16 offsets) in the text. */
  readonly line: number;
  readonly from: number;
  readonly to: number;
}

/** What the index says the answer is, kept server-side until the owner reveals. */
export type DrillExpected =
  | { readonly ask: 'einsum'; readonly einsum: string }
  | { readonly ask: 'contracting' | 'batch'; readonly lhs: readonly number[]; readonly rhs: readonly number[] }
  | { readonly ask: 'fused'; readonly fusion: string | null }
  | { readonly ask: 'bytes'; readonly bytes: number };

/** A question with its expected answer: what generators make and checkers read. */
export interface DrillItem {
  readonly question: DrillQuestion;
  readonly expected: DrillExpected;
}

/** A checker's verdict on one answer. `reason` says, in a few words, why a wrong answer is wrong. */
export interface DrillVerdict {
  readonly correct: boolean;
  readonly reason?: string;
}

/** The longest answer a checker reads (characters); a longer one is wrong without being parsed. */
export const MAX_ANSWER_CHARS = 200;
