import { z } from 'zod';
import { DRILL_ASKS, MAX_ANSWER_CHARS, type DrillAsk, type DrillQuestion } from './types';
import { MAX_DRILL_QUESTIONS } from './generate';

/**
 * Request bodies and answers of the drill API (docs/teaching.md), shared by the server
 * (validation) and the browser (typed calls).
 */

/** Drills a room holds at most; starting one more is refused with `quota_exceeded`. */
export const MAX_DRILLS_PER_ROOM = 50;
/** People who may answer one drill; a further person is refused with `quota_exceeded`. */
export const MAX_DRILL_PEOPLE = 500;
/** Longest name a person answers under, in characters. */
export const MAX_DRILL_NAME = 60;

/** `POST /api/rooms/:id/drills` (owner). `seed` defaults to a random one; `count` to 5. */
export const StartDrillBody = z.strictObject({
  docId: z.string().min(1).max(100),
  count: z.number().int().min(1).max(MAX_DRILL_QUESTIONS).optional(),
  seed: z.number().int().min(0).max(2 ** 32 - 1).optional(),
  asks: z.array(z.enum(DRILL_ASKS as [DrillAsk, ...DrillAsk[]])).min(1).max(DRILL_ASKS.length).optional(),
});
export type StartDrillBody = z.infer<typeof StartDrillBody>;

/**
 * The secret a person answers with: random text the browser keeps (per room). The server stores
 * only its hash, which is the person's id; reading one's own answers needs the secret again, so a
 * member cannot read another's answers through the shared room link.
 */
export const AnswerKey = z.string().regex(/^[A-Za-z0-9_-]{16,128}$/, 'an answer key is 16 to 128 letters, digits, _ or -');

/** `POST /api/rooms/:id/drills/:drillId/answers`: one answer to one question; a second replaces the first. */
export const AnswerBody = z.strictObject({
  questionId: z.string().regex(/^q\d{1,2}$/),
  answer: z.string().max(MAX_ANSWER_CHARS),
  name: z.string().trim().min(1).max(MAX_DRILL_NAME),
  key: AnswerKey,
});
export type AnswerBody = z.infer<typeof AnswerBody>;

/** The header `GET …/answers/mine` reads the answer key from. */
export const ANSWER_KEY_HEADER = 'x-seam-answer-key';

/** Right and wrong answers to one question. */
export interface DrillTally {
  readonly answered: number;
  readonly right: number;
}

/** A drill as the room document's `drills` key holds it (server-written, every member reads it). */
export interface DrillEntry {
  readonly id: string;
  readonly docId: string;
  readonly createdAt: number;
  readonly questions: readonly DrillQuestion[];
  /** Set once the owner reveals: the expected answers as shown, and the class's tally, by question id. */
  readonly revealed?: {
    readonly at: number;
    readonly answers: Readonly<Record<string, string>>;
    readonly tally: Readonly<Record<string, DrillTally>>;
    /** How many people answered at least one question. */
    readonly people: number;
  };
}

/** One person's answer as the owner (or, for their own, the person) reads it. */
export interface DrillAnswerView {
  readonly questionId: string;
  readonly answer: string;
  /** Always present for the owner; for a person, only once the drill is revealed. */
  readonly correct?: boolean;
  readonly at: number;
}

/** `GET …/answers` (owner) and each `answers` event of `GET …/events`: the class, in aggregate and by person. */
export interface DrillClassView {
  readonly drillId: string;
  readonly tally: Readonly<Record<string, DrillTally>>;
  /** By person, in order of first answer. `person` is an opaque id (a hash of their key). */
  readonly people: readonly { readonly person: string; readonly name: string; readonly answers: readonly DrillAnswerView[] }[];
}

/** `GET …/answers/mine`: the asker's own answers; verdicts and expected answers only once revealed. */
export interface DrillMineView {
  readonly drillId: string;
  readonly revealed: boolean;
  readonly answers: readonly DrillAnswerView[];
}
