import type pg from 'pg';
import type { DrillItem } from '@seam/shared/teaching';
import { toAnswer, type AnswerRow, type DrillRow } from '../../teaching/drill-store';
import type { Drills } from '../shared-store';
import { query } from './pool';

/** Drills and their answers in PostgreSQL (tables `drills`, `drill_answers`), with the embedded `DrillStore`'s semantics. */
export function postgresDrills(pool: pg.Pool): Drills {
  const count = async (operation: string, text: string, values: unknown[]) => (await query<{ n: number }>(pool, operation, text, values)).rows[0]?.n ?? 0;
  return {
    create: async (d) => {
      await query(pool, 'drills.create', 'INSERT INTO drills (id, room_id, doc_id, items, created_at) VALUES ($1, $2, $3, $4, $5)',
        [d.id, d.roomId, d.docId, JSON.stringify(d.items), d.createdAt]);
    },
    get: async (roomId, id) => {
      const r = (await query<DrillRow>(pool, 'drills.get', 'SELECT * FROM drills WHERE room_id = $1 AND id = $2', [roomId, id])).rows[0];
      return r && { id: r.id, roomId: r.room_id, docId: r.doc_id, items: JSON.parse(r.items) as DrillItem[], createdAt: r.created_at, revealedAt: r.revealed_at };
    },
    countInRoom: (roomId) => count('drills.countInRoom', 'SELECT count(*)::bigint AS n FROM drills WHERE room_id = $1', [roomId]),
    // A drill already revealed keeps its first time.
    reveal: async (id, at) => {
      await query(pool, 'drills.reveal', 'UPDATE drills SET revealed_at = $1 WHERE id = $2 AND revealed_at IS NULL', [at, id]);
    },
    people: (drillId) => count('drills.people', 'SELECT count(DISTINCT person)::bigint AS n FROM drill_answers WHERE drill_id = $1', [drillId]),
    hasPerson: async (drillId, person) =>
      (await query(pool, 'drills.hasPerson', 'SELECT 1 FROM drill_answers WHERE drill_id = $1 AND person = $2 LIMIT 1', [drillId, person])).rowCount === 1,
    // A second answer to the same question replaces the first; the person's first time stays.
    answer: async (drillId, a) => {
      await query(pool, 'drills.answer', `INSERT INTO drill_answers (drill_id, person, name, question_id, answer, correct, answered_at, first_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, COALESCE((SELECT min(first_at) FROM drill_answers WHERE drill_id = $1 AND person = $2), $7))
        ON CONFLICT (drill_id, person, question_id) DO UPDATE SET name = EXCLUDED.name, answer = EXCLUDED.answer,
          correct = EXCLUDED.correct, answered_at = EXCLUDED.answered_at`,
      [drillId, a.person, a.name, a.questionId, a.answer, a.correct ? 1 : 0, a.answeredAt]);
    },
    answers: async (drillId) =>
      (await query<AnswerRow>(pool, 'drills.answers', 'SELECT * FROM drill_answers WHERE drill_id = $1 ORDER BY first_at, person COLLATE "C", question_id COLLATE "C"', [drillId])).rows.map(toAnswer),
    answersOf: async (drillId, person) =>
      (await query<AnswerRow>(pool, 'drills.answersOf', 'SELECT * FROM drill_answers WHERE drill_id = $1 AND person = $2 ORDER BY question_id COLLATE "C"', [drillId, person])).rows.map(toAnswer),
  };
}
