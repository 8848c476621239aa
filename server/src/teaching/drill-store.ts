import type Database from 'better-sqlite3';
import type { DrillItem } from '@seam/shared/teaching';

/** A drill as stored: its questions with the expected answers, which only the server reads. */
export interface StoredDrill {
  readonly id: string;
  readonly roomId: string;
  readonly docId: string;
  readonly items: readonly DrillItem[];
  readonly createdAt: number;
  readonly revealedAt: number | null;
}

/** One person's answer to one question, with the checker's verdict. */
export interface StoredAnswer {
  readonly person: string;
  readonly name: string;
  readonly questionId: string;
  readonly answer: string;
  readonly correct: boolean;
  readonly answeredAt: number;
  /** When the person first answered this drill: orders people in the owner's view. */
  readonly firstAt: number;
}

/** A `drills` row as both backends read it. */
export interface DrillRow { id: string; room_id: string; doc_id: string; items: string; created_at: number; revealed_at: number | null }
/** A `drill_answers` row as both backends read it (`correct` is 0 or 1). */
export interface AnswerRow { person: string; name: string; question_id: string; answer: string; correct: number; answered_at: number; first_at: number }

/** A stored answer row as `StoredAnswer`. */
export const toAnswer = (r: AnswerRow): StoredAnswer => ({
  person: r.person, name: r.name, questionId: r.question_id, answer: r.answer, correct: r.correct === 1, answeredAt: r.answered_at, firstAt: r.first_at,
});

/** How many drills' parsed items are kept in memory. */
const PARSED_DRILLS = 64;

/** Drills and their answers in SQLite (tables made by `addDrillTables`). */
export class DrillStore {
  private readonly insertDrill;
  private readonly selectDrill;
  private readonly countDrills;
  private readonly setRevealed;
  private readonly upsert;
  private readonly selectAnswers;
  private readonly selectMine;
  private readonly countPeople;
  private readonly personFirst;
  /** Parsed items by drill id, with the text they were parsed from. */
  private readonly parsed = new Map<string, { text: string; items: DrillItem[] }>();

  constructor(db: Database.Database) {
    this.insertDrill = db.prepare('INSERT INTO drills (id, room_id, doc_id, items, created_at) VALUES (?, ?, ?, ?, ?)');
    this.selectDrill = db.prepare<[string, string], DrillRow>('SELECT * FROM drills WHERE room_id = ? AND id = ?');
    this.countDrills = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM drills WHERE room_id = ?');
    this.setRevealed = db.prepare('UPDATE drills SET revealed_at = ? WHERE id = ? AND revealed_at IS NULL');
    // A second answer to the same question replaces the first; the person's first time stays.
    this.upsert = db.prepare(`INSERT INTO drill_answers (drill_id, person, name, question_id, answer, correct, answered_at, first_at)
      VALUES (@drillId, @person, @name, @questionId, @answer, @correct, @at, @firstAt)
      ON CONFLICT (drill_id, person, question_id) DO UPDATE SET name = excluded.name, answer = excluded.answer,
        correct = excluded.correct, answered_at = excluded.answered_at`);
    this.selectAnswers = db.prepare<[string], AnswerRow>('SELECT * FROM drill_answers WHERE drill_id = ? ORDER BY first_at, person, question_id');
    this.selectMine = db.prepare<[string, string], AnswerRow>('SELECT * FROM drill_answers WHERE drill_id = ? AND person = ? ORDER BY question_id');
    this.countPeople = db.prepare<[string], { n: number }>('SELECT count(DISTINCT person) AS n FROM drill_answers WHERE drill_id = ?');
    this.personFirst = db.prepare<[string, string], { t: number | null }>('SELECT min(first_at) AS t FROM drill_answers WHERE drill_id = ? AND person = ?');
  }

  create(d: Omit<StoredDrill, 'revealedAt'>): void {
    this.insertDrill.run(d.id, d.roomId, d.docId, JSON.stringify(d.items), d.createdAt);
  }

  /** The drill `id` of room `roomId`, or `undefined`. Its items are parsed once per text read. */
  get(roomId: string, id: string): StoredDrill | undefined {
    const r = this.selectDrill.get(roomId, id);
    if (!r) return undefined;
    let items = this.parsed.get(r.id);
    if (items?.text !== r.items) {
      // Drills being answered are few at a time: a full cache starts again rather than tracking age.
      if (this.parsed.size >= PARSED_DRILLS) this.parsed.clear();
      this.parsed.set(r.id, (items = { text: r.items, items: JSON.parse(r.items) as DrillItem[] }));
    }
    return { id: r.id, roomId: r.room_id, docId: r.doc_id, items: items.items, createdAt: r.created_at, revealedAt: r.revealed_at };
  }

  countInRoom(roomId: string): number {
    return this.countDrills.get(roomId)?.n ?? 0;
  }

  /** Marks the drill revealed at `at`; a drill already revealed keeps its first time. */
  reveal(id: string, at: number): void {
    this.setRevealed.run(at, id);
  }

  /** How many people answered the drill. */
  people(drillId: string): number {
    return this.countPeople.get(drillId)?.n ?? 0;
  }

  /** Whether `person` has answered the drill before. */
  hasPerson(drillId: string, person: string): boolean {
    return (this.personFirst.get(drillId, person)?.t ?? null) !== null;
  }

  /** Stores one answer, replacing the person's earlier answer to the same question. */
  answer(drillId: string, a: Omit<StoredAnswer, 'firstAt'>): void {
    const firstAt = this.personFirst.get(drillId, a.person)?.t ?? a.answeredAt;
    this.upsert.run({ drillId, person: a.person, name: a.name, questionId: a.questionId, answer: a.answer, correct: a.correct ? 1 : 0, at: a.answeredAt, firstAt });
  }

  /** Every answer to the drill, people in order of their first answer. */
  answers(drillId: string): StoredAnswer[] {
    return this.selectAnswers.all(drillId).map(toAnswer);
  }

  /** One person's answers to the drill. */
  answersOf(drillId: string, person: string): StoredAnswer[] {
    return this.selectMine.all(drillId, person).map(toAnswer);
  }
}
