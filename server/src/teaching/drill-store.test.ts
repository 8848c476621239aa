import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DocumentKind } from '@seam/shared/model';
import { addDrillTables } from '../store/migrations';
import { DrillStore } from './drill-store';

/** A database as a data directory from before drills had it: rooms, and nothing of drills. */
function oldDatabase(): Database.Database {
  const db = new Database(':memory:');
  db.exec("CREATE TABLE rooms (id TEXT PRIMARY KEY, title TEXT NOT NULL, created_at INTEGER NOT NULL); INSERT INTO rooms VALUES ('r', 'class', 1);");
  return db;
}

const ITEM = {
  question: { id: 'q1', ask: 'einsum' as const, prompt: 'p', placeholder: '', docId: 'd', kind: DocumentKind.jaxpr, subject: 'e', line: 2, from: 0, to: 1 },
  expected: { ask: 'einsum' as const, einsum: 'ij,jk->ik' },
};

describe('drill tables', () => {
  it('are added once to an older data directory, which keeps its rows', () => {
    const db = oldDatabase();
    expect(addDrillTables(db)).toBe(true);
    expect(addDrillTables(db)).toBe(false);
    expect(db.prepare('SELECT title FROM rooms').all()).toEqual([{ title: 'class' }]);
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((t) => t.name);
    expect(tables).toEqual(['drill_answers', 'drills', 'rooms']);
  });

  it('keep one answer per person and question, the person\'s first time, and the first reveal', () => {
    const db = oldDatabase();
    addDrillTables(db);
    const store = new DrillStore(db);
    store.create({ id: 'd1', roomId: 'r', docId: 'd', items: [ITEM], createdAt: 10 });
    expect(store.get('other-room', 'd1')).toBeUndefined();
    expect(store.get('r', 'd1')).toEqual({ id: 'd1', roomId: 'r', docId: 'd', items: [ITEM], createdAt: 10, revealedAt: null });
    store.answer('d1', { person: 'p', name: 'Ada', questionId: 'q1', answer: 'x', correct: false, answeredAt: 20 });
    store.answer('d1', { person: 'p', name: 'Ada L.', questionId: 'q1', answer: 'ij,jk->ik', correct: true, answeredAt: 30 });
    expect(store.answers('d1')).toEqual([{ person: 'p', name: 'Ada L.', questionId: 'q1', answer: 'ij,jk->ik', correct: true, answeredAt: 30, firstAt: 20 }]);
    expect(store.people('d1')).toBe(1);
    expect(store.hasPerson('d1', 'p')).toBe(true);
    expect(store.hasPerson('d1', 'q')).toBe(false);
    expect(store.countInRoom('r')).toBe(1);
    store.reveal('d1', 40);
    store.reveal('d1', 50);
    expect(store.get('r', 'd1')?.revealedAt).toBe(40);
  });
});
