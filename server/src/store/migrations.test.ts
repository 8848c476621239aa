import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as Y from 'yjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SyncMode } from '../config';
import { openStore } from './index';

/** The tables as data directories created before provenance was stored hold them. */
const OLD_SCHEMA = `
CREATE TABLE rooms (id TEXT PRIMARY KEY, title TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE tokens (room_id TEXT NOT NULL REFERENCES rooms(id), role TEXT NOT NULL, hash BLOB NOT NULL UNIQUE, PRIMARY KEY (room_id, role));
CREATE TABLE room_updates (id INTEGER PRIMARY KEY AUTOINCREMENT, room_id TEXT NOT NULL, data BLOB NOT NULL);
CREATE TABLE room_snapshots (room_id TEXT PRIMARY KEY, data BLOB NOT NULL, through_id INTEGER NOT NULL);
CREATE TABLE blobs (sha256 TEXT PRIMARY KEY, bytes INTEGER NOT NULL, gzip BLOB NOT NULL, analysis_gzip BLOB NOT NULL);
CREATE TABLE documents (id TEXT PRIMARY KEY, room_id TEXT NOT NULL REFERENCES rooms(id), sha256 TEXT NOT NULL REFERENCES blobs(sha256),
  title TEXT NOT NULL, kind TEXT NOT NULL, bytes INTEGER NOT NULL, created_at INTEGER NOT NULL);
`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'seam-migrate-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** An old data directory: room `a` with a capture and a paste in its log, room `b` with a capture in its snapshot. */
function oldDataDir(): void {
  const db = new Database(join(dir, 'seam.db'));
  db.exec(OLD_SCHEMA);
  db.prepare('INSERT INTO blobs VALUES (?, ?, ?, ?)').run('h', 1, Buffer.alloc(1), Buffer.alloc(1));
  const doc = (roomId: string, id: string, extra: Record<string, string>) => {
    db.prepare('INSERT INTO documents VALUES (?, ?, ?, ?, ?, ?, ?)').run(id, roomId, 'h', id, 'hlo', 1, 1);
    const y = new Y.Doc();
    y.getMap('documents').set(id, { id, title: id, kind: 'hlo', bytes: 1, sha256: 'h', createdAt: 1, ...extra });
    return Y.encodeStateAsUpdate(y);
  };
  for (const id of ['a', 'b']) db.prepare('INSERT INTO rooms VALUES (?, ?, ?)').run(id, id, 1);
  db.prepare('INSERT INTO room_updates (room_id, data) VALUES (?, ?)').run('a', doc('a', 'cap-a', { addedBy: 'runner:local', captureId: 'cap_1' }));
  db.prepare('INSERT INTO room_updates (room_id, data) VALUES (?, ?)').run('a', doc('a', 'paste-a', {}));
  db.prepare('INSERT INTO room_snapshots VALUES (?, ?, ?)').run('b', doc('b', 'cap-b', { addedBy: 'runner:tpu', captureId: 'cap_2' }), 99);
  db.close();
}

describe('documents provenance migration', () => {
  it('adds the columns to an old data directory and fills them from the room documents', () => {
    oldDataDir();
    const store = openStore(dir, SyncMode.normal);
    try {
      expect(store.documents.list('a')).toEqual([
        expect.objectContaining({ id: 'cap-a', addedBy: 'runner:local', captureId: 'cap_1' }),
        expect.not.objectContaining({ addedBy: expect.anything() }),
      ]);
      expect(store.documents.get('b', 'cap-b')).toMatchObject({ addedBy: 'runner:tpu', captureId: 'cap_2' });
    } finally {
      store.close();
    }
    // Opening again changes nothing.
    const again = openStore(dir, SyncMode.normal);
    try {
      expect(again.documents.get('a', 'cap-a')).toMatchObject({ addedBy: 'runner:local', captureId: 'cap_1' });
      expect(again.documents.get('a', 'paste-a')).not.toHaveProperty('captureId');
    } finally {
      again.close();
    }
  });

  it('stores and lists provenance for new documents', () => {
    const store = openStore(dir, SyncMode.normal);
    try {
      store.rooms.create({ id: 'r', title: 'r', createdAt: 1 }, { owner: Buffer.alloc(32, 1), annotator: Buffer.alloc(32, 2), viewer: Buffer.alloc(32, 3) });
      const meta = { id: 'd', title: 'hlo-opt', kind: 'hlo-opt', bytes: 1, sha256: 'h', createdAt: 2, addedBy: 'runner:local', captureId: 'cap_9' } as const;
      store.documents.add('r', meta, { gzip: new Uint8Array(1), analysisGzip: new Uint8Array(1) });
      expect(store.documents.list('r')).toEqual([meta]);
    } finally {
      store.close();
    }
  });

  it('adds the module columns to an old data directory, and stores and lists module groups and pass dumps', () => {
    oldDataDir();
    const store = openStore(dir, SyncMode.normal);
    try {
      expect(store.documents.list('a').every((d) => d.module === undefined)).toBe(true);
      const pass = { index: 12, pipeline: 'simplification', name: 'algsimp', when: 'after' } as const;
      const module = { groupId: 'm1', name: 'jit_f', number: 42, path: 'dump/module_0042.jit_f.0012.simplification.after_algsimp.txt', pass };
      const meta = { id: 'p', title: module.path, kind: 'hlo', bytes: 1, sha256: 'h', createdAt: 3, module } as const;
      const jax = { id: 'j', title: 'jax/jax_ir0000_jit_g_compile.mlir', kind: 'stablehlo', bytes: 1, sha256: 'h', createdAt: 4, module: { groupId: 'j1', name: 'jit_g', path: 'jax/jax_ir0000_jit_g_compile.mlir' } } as const;
      store.documents.addAll('a', [{ meta }, { meta: jax }, { meta: { id: 'loose', title: 'n.txt', kind: 'text', bytes: 1, sha256: 'h', createdAt: 5 }, path: 'dump/n.txt' }]);
      expect(store.documents.get('a', 'p')).toEqual(meta);
      expect(store.documents.get('a', 'j')).toEqual(jax);
      expect(store.documents.get('a', 'loose')).not.toHaveProperty('module');
      expect(store.documents.hasFile('a', 'dump/n.txt', 'h')).toBe(true);
      expect(store.documents.hasFile('a', module.path, 'other')).toBe(false);
      expect(store.documents.moduleRefs('a')).toEqual([jax.module]);
    } finally {
      store.close();
    }
  });

  it('adds the imported file sha to an old data directory, and tells a file by its own sha as well as the document\'s', () => {
    oldDataDir();
    const store = openStore(dir, SyncMode.normal);
    try {
      expect(store.db.prepare("SELECT count(*) AS n FROM pragma_table_info('documents') WHERE name = 'file_sha256'").get()).toEqual({ n: 1 });
      expect(store.documents.hasFile('a', 'p/t.json.gz', 'gz')).toBe(false);
      store.documents.addAll('a', [{ meta: { id: 't', title: 't.json.gz', kind: 'trace', bytes: 1, sha256: 'h', createdAt: 6 } }]);
      store.documents.setPath('a', 't', 'p/t.json.gz', 'gz');
      expect(store.documents.hasFile('a', 'p/t.json.gz', 'gz')).toBe(true);
      expect(store.documents.hasFile('a', 'p/t.json.gz', 'h')).toBe(true);
      expect(store.documents.hasFile('a', 'p/other.json.gz', 'gz')).toBe(false);
    } finally {
      store.close();
    }
  });
});
