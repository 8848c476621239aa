import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SyncMode } from '@seam/server';
import type { DocumentMeta } from '@seam/shared/model';
import * as Y from 'yjs';
import { runCli } from '../../server/src/cli/run';
import { MIGRATIONS, migrate, openPostgresStore } from '../../server/src/store/postgres';
import { openPool } from '../../server/src/store/postgres/pool';
import type { SharedStore } from '../../server/src/store/shared-store';
import { openSqliteSharedStore } from '../../server/src/store/sqlite-shared-store';
import { StoreUnavailableError } from '../../server/src/store/store-errors';
import { addDocument, createRoom, startTestServer } from '../helpers';
import { freePort } from '../helpers/scale/free-port';
import { startPostgres, type TestPostgres } from '../helpers/scale/postgres';
import { describeRunnerTokens } from '../helpers/scale/runner-tokens-contract';
import { describeContentStores } from '../helpers/scale/content-contract';
import { describeInvitationsAndDrills } from '../helpers/scale/invitations-drills-contract';
import { describeSharedStore, hashes, type ContractBackend, type ContractClock } from '../helpers/scale/store-contract';

let pgServer: TestPostgres;
let databases = 0;
beforeAll(async () => {
  pgServer = await startPostgres();
}, 120_000);
afterAll(async () => {
  await pgServer?.close();
});

/** A fresh SQLite data directory; `second()` opens it again, as another connection would. */
async function sqliteBackend(clock: ContractClock): Promise<ContractBackend> {
  const dir = mkdtempSync(join(tmpdir(), 'seam-shared-sqlite-'));
  const opened: SharedStore[] = [];
  const open = () => {
    const s = openSqliteSharedStore(dir, SyncMode.full, () => clock.t);
    opened.push(s);
    return s;
  };
  return {
    store: open(),
    second: async () => open(),
    cleanup: async () => {
      for (const s of opened) await s.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh PostgreSQL database; `second()` opens another pool on it, as another instance would. */
async function postgresBackend(clock: ContractClock): Promise<ContractBackend> {
  const name = `contract_${++databases}`;
  const url = await pgServer.createDatabase(name);
  const opened: SharedStore[] = [];
  const open = async () => {
    const s = await openPostgresStore(url, { now: () => clock.t });
    opened.push(s);
    return s;
  };
  return {
    store: await open(),
    second: open,
    cleanup: async () => {
      for (const s of opened) await s.close();
      // Dropped, so that the tens of MB the content tests write are not checkpointed when the outage tests stop PostgreSQL.
      const admin = openPool(pgServer.url, 1);
      try {
        await admin.query(`DROP DATABASE ${name}`);
      } finally {
        await admin.end();
      }
    },
  };
}

describeSharedStore('SQLite (embedded, a file on disk)', sqliteBackend);
describeSharedStore('PostgreSQL', postgresBackend);
describeContentStores('SQLite (embedded, a file on disk)', sqliteBackend);
describeContentStores('PostgreSQL', postgresBackend);
describeInvitationsAndDrills('SQLite (embedded, a file on disk)', sqliteBackend);
describeInvitationsAndDrills('PostgreSQL', postgresBackend);
describeRunnerTokens('SQLite (embedded, a file on disk)', sqliteBackend);
describeRunnerTokens('PostgreSQL', postgresBackend);

describe('PostgreSQL schema migrations', () => {
  it('migrates a fresh database once when several instances open it at the same time, and not again later', async () => {
    const url = await pgServer.createDatabase('migrations');
    const stores = await Promise.all(Array.from({ length: 4 }, () => openPostgresStore(url)));
    const pool = openPool(url, 1);
    try {
      const rows = (await pool.query('SELECT version FROM seam_migrations ORDER BY version')).rows.map((r: { version: number }) => r.version);
      expect(rows).toEqual(MIGRATIONS.map((m) => m.version));
      expect(await migrate(pool)).toEqual([]);
      await stores[0]!.roomLog.appendRooms([{ roomId: 'r', updates: [new Uint8Array([1])] }]);
      expect((await stores[3]!.roomLog.load('r')).updates).toHaveLength(1);
    } finally {
      await pool.end();
      for (const s of stores) await s.close();
    }
  });
});

describe('shared store when its backend is gone', () => {
  it('PostgreSQL stopped: writes fail with StoreUnavailableError, store nothing, and work again once it is back', async () => {
    const url = await pgServer.createDatabase('outage');
    const store = await openPostgresStore(url);
    try {
      await store.roomLog.appendRooms([{ roomId: 'r', updates: [new Uint8Array([1])] }]);
      await pgServer.stop();
      await expect(store.roomLog.appendRooms([{ roomId: 'r', updates: [new Uint8Array([2])] }])).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.jobs.lease('run', 'cpu', 1_000)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.rooms.count()).rejects.toBeInstanceOf(StoreUnavailableError);
      await pgServer.start();
      expect((await store.roomLog.load('r')).updates.map((u) => [...u])).toEqual([[1]]);
      await store.roomLog.appendRooms([{ roomId: 'r', updates: [new Uint8Array([3])] }]);
      expect((await store.roomLog.load('r')).updates.map((u) => [...u])).toEqual([[1], [3]]);
    } finally {
      await store.close();
    }
  });

  it('PostgreSQL stopped: dump, trace, history, invitation, drill and runner token calls fail with StoreUnavailableError and store nothing', async () => {
    const url = await pgServer.createDatabase('outage_content');
    const store = await openPostgresStore(url);
    const gz = (text: string) => gzipSync(text);
    const sha = createHash('sha256').update('dump').digest('hex');
    const meta: DocumentMeta = { id: 'd1', title: 'd', kind: 'hlo', bytes: 4, sha256: sha, createdAt: 1 };
    const blob = { gzip: gz('dump'), analysisGzip: gz('{}') };
    const reduced = { summary: gz('s'), ops: gz('o'), strings: gz('t'), overview: gz('v'), blocks: [{ track: 0, block: 0, startUs: 0, endUs: 1, gzip: gz('b') }] };
    try {
      await store.rooms.create({ id: 'r', title: 'r', createdAt: 1 }, hashes('r'));
      await store.documents.putBlob(sha, 4, blob);
      await store.roomLog.appendRooms([{ roomId: 'r', updates: [new Uint8Array([1])] }]);
      await pgServer.stop();
      const calls: (() => Promise<unknown>)[] = [
        () => store.documents.add('r', meta, undefined),
        () => store.documents.textGzip(sha),
        () => store.documents.textGzipPieces(sha),
        () => store.traces.put(sha, reduced),
        () => store.traces.blocks(sha, 0, 0, 1),
        () => store.history.recordPresenter('r', Date.now(), null),
        () => store.history.page('r', 0, Date.now(), undefined, 10, 1 << 20),
        () => store.roomLog.appendRooms([{ roomId: 'r', updates: [new Uint8Array([2])] }]),
        () => store.invitations.insert(createHash('sha256').update('secret').digest(), { id: 'inv', note: '', uses: 1, createdAt: 1, expiresAt: null }),
        () => store.drills.create({ id: 'dr', roomId: 'r', docId: 'd1', items: [], createdAt: 1 }),
        () => store.runnerTokens.create('cpu-1'),
      ];
      for (const call of calls) await expect(call()).rejects.toBeInstanceOf(StoreUnavailableError);
      await pgServer.start();
      expect(await store.documents.list('r')).toEqual([]);
      expect(await store.traces.has(sha)).toBe(false);
      expect(await store.history.presenterSamples('r', 10)).toEqual([]);
      expect(await store.invitations.list()).toEqual([]);
      expect(await store.drills.countInRoom('r')).toBe(0);
      expect(await store.runnerTokens.list()).toEqual([]);
      const rows = (await store.history.page('r', 0, Date.now(), undefined, 10, 1 << 20)).rows;
      expect(rows.map((r) => [...r.data])).toEqual([[1]]);
    } finally {
      await store.close();
    }
  });

  it('PostgreSQL killed (kill -9) mid-stream: every append that resolved is there after recovery with its history, none that rejected is acknowledged', async () => {
    const url = await pgServer.createDatabase('crash');
    const store = await openPostgresStore(url);
    try {
      const resolved: number[] = [];
      const rejected: unknown[] = [];
      let i = 0;
      const writer = (async () => {
        while (i < 400) {
          const n = i++;
          try {
            await store.roomLog.appendRooms([{ roomId: 'r', updates: [new Uint8Array([n % 256, n >> 8])] }]);
            resolved.push(n);
          } catch (err) {
            rejected.push(err);
          }
        }
      })();
      while (resolved.length < 50) await new Promise((r) => setTimeout(r, 5));
      await pgServer.kill();
      await writer;
      await pgServer.start();
      const stored = new Set((await store.roomLog.load('r')).updates.map((u) => u[0]! + (u[1]! << 8)));
      for (const n of resolved) expect(stored.has(n)).toBe(true);
      // The history is written in the append's transaction: after the crash it holds exactly the updates the log holds.
      const history = (await store.history.page('r', 0, Number.MAX_SAFE_INTEGER, undefined, 10_000, 1 << 30)).rows.map((r) => r.data[0]! + (r.data[1]! << 8));
      expect(history).toEqual((await store.roomLog.load('r')).updates.map((u) => u[0]! + (u[1]! << 8)));
      expect(rejected.length).toBeGreaterThan(0);
      expect(rejected.every((e) => e instanceof StoreUnavailableError)).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('PostgreSQL unreachable at open: opening fails with StoreUnavailableError', async () => {
    await expect(openPostgresStore(`postgres://seam@127.0.0.1:${pgServer.port}/no_such_database_here`)).rejects.toThrow(/no_such_database_here/);
    await pgServer.stop();
    try {
      await expect(openPostgresStore(pgServer.url)).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await pgServer.start();
    }
  });

  it('SQLite closed: calls fail with StoreUnavailableError', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seam-shared-sqlite-'));
    try {
      const store = openSqliteSharedStore(dir, SyncMode.full);
      await store.roomLog.appendRooms([{ roomId: 'r', updates: [new Uint8Array([1])] }]);
      await store.close();
      await expect(store.roomLog.appendRooms([{ roomId: 'r', updates: [new Uint8Array([2])] }])).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.roomLog.load('r')).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.documents.list('r')).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.history.start('r', 1)).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('seam migrate', () => {
  const trace = readFileSync(new URL('../fixtures/trace/mlp.trace.json.gz', import.meta.url));
  const run = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(['migrate', ...argv], { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out, err };
  };
  /** A room's stored document as JSON, from its snapshot and log. */
  const roomJson = (state: { snapshot: Uint8Array | undefined; updates: readonly Uint8Array[] }) => {
    const doc = new Y.Doc();
    if (state.snapshot) Y.applyUpdate(doc, state.snapshot);
    for (const u of state.updates) Y.applyUpdate(doc, u);
    const json = Object.fromEntries([...doc.share.keys()].map((k) => [k, doc.get(k, Y.Map).toJSON()]));
    doc.destroy();
    return json;
  };

  it('copies a data directory written by a real server (rooms, annotations, a dump, a trace, the replay history, a runner token) into PostgreSQL, and adds nothing the second time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seam-migrate-'));
    try {
      const server = await startTestServer({ dataDir: dir });
      const room = await createRoom(server, 'Attention, migrated');
      const dumpId = await addDocument(server, room.id, room.tokens.owner, 'attn.hlo', 'HloModule attn\n\nENTRY main {\n  ROOT p = f32[4] parameter(0)\n}\n');
      const upload = await fetch(`${server.url}/api/rooms/${room.id}/documents?title=mlp.trace.json.gz`, {
        method: 'POST', headers: { authorization: `Bearer ${room.tokens.owner}`, 'content-type': 'application/gzip' }, body: new Uint8Array(trace),
      });
      expect(upload.status).toBe(201);
      const annotate = await fetch(`${server.url}/api/rooms/${room.id}/annotations`, {
        method: 'POST', headers: { authorization: `Bearer ${room.tokens.annotator}`, 'content-type': 'application/json' },
        body: JSON.stringify({ docId: dumpId, from: 0, to: 14, kind: 'note', body: 'the whole module, migrated' }),
      });
      expect(annotate.status).toBe(201);
      await server.close();
      const operator = openSqliteSharedStore(dir, SyncMode.full);
      const runnerToken = (await operator.runnerTokens.create('cpu-1')).token;
      // As an import records a trace: its path and the sha256 of the gzipped file it read.
      const traceDoc = (await operator.documents.list(room.id)).find((d) => d.kind === 'trace')!;
      const fileSha = createHash('sha256').update(trace).digest('hex');
      await operator.documents.setPath(room.id, traceDoc.id, 'traces/mlp.trace.json.gz', fileSha);
      await operator.close();

      const url = await pgServer.createDatabase('migrated');
      const first = await run(dir, url);
      expect(first.err.filter((l) => !l.startsWith('seam: migrating '))).toEqual([]);
      expect(first.code).toBe(0);
      expect(first.out[0]).toMatch(/^table\s+rows\s+added\s+already there$/);
      expect(first.out.at(-1)).toMatch(/: (\d+) of \1 rows added, 0 already there\.$/);

      const embedded = openSqliteSharedStore(dir, SyncMode.full);
      const scaled = await openPostgresStore(url);
      try {
        expect(await scaled.rooms.get(room.id)).toEqual(await embedded.rooms.get(room.id));
        expect(await scaled.rooms.lookupToken(createHash('sha256').update(room.tokens.owner).digest())).toEqual({ roomId: room.id, role: 'owner' });
        const log = await scaled.roomLog.load(room.id);
        expect(roomJson(log)).toEqual(roomJson(await embedded.roomLog.load(room.id)));
        expect(JSON.stringify(roomJson(log))).toContain('the whole module, migrated');
        const docs = await embedded.documents.list(room.id);
        expect(docs.map((d) => d.kind).sort()).toEqual(['hlo', 'trace']);
        expect(await scaled.documents.list(room.id)).toEqual(docs);
        for (const d of docs) {
          expect(Buffer.from((await scaled.documents.textGzip(d.sha256))!).equals((await embedded.documents.textGzip(d.sha256))!)).toBe(true);
          expect(Buffer.from((await scaled.documents.analysisGzip(d.sha256))!).equals((await embedded.documents.analysisGzip(d.sha256))!)).toBe(true);
        }
        const traced = docs.find((d) => d.kind === 'trace')!;
        expect(await scaled.documents.hasFile(room.id, 'traces/mlp.trace.json.gz', createHash('sha256').update(trace).digest('hex'))).toBe(true);
        expect(await scaled.traces.has(traced.sha256)).toBe(true);
        expect(Buffer.from((await scaled.traces.part(traced.sha256, 'ops'))!).equals((await embedded.traces.part(traced.sha256, 'ops'))!)).toBe(true);
        const blocks = async (s: SharedStore) => (await Promise.all([0, 1, 2, 3].map((t) => s.traces.blocks(traced.sha256, t, Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY)))).flat();
        const embeddedBlocks = await blocks(embedded);
        expect(embeddedBlocks.length).toBeGreaterThan(0);
        expect((await blocks(scaled)).map((b) => Buffer.from(b).toString('hex'))).toEqual(embeddedBlocks.map((b) => Buffer.from(b).toString('hex')));
        const history = async (s: SharedStore) => (await s.history.page(room.id, 0, Number.MAX_SAFE_INTEGER, undefined, 10_000, 1 << 30)).rows
          .map((r) => ({ ...r, data: Buffer.from(r.data).toString('hex') }));
        const embeddedHistory = await history(embedded);
        expect(embeddedHistory.length).toBeGreaterThan(0);
        expect(await history(scaled)).toEqual(embeddedHistory);
        expect(await scaled.runnerTokens.verify(runnerToken)).toMatchObject({ name: 'cpu-1', serverMinted: false, revokedAt: null });
        // An instance appending to the copied room numbers its updates after the copied ones.
        const [next] = await scaled.roomLog.appendRooms([{ roomId: room.id, updates: [Y.encodeStateAsUpdate(new Y.Doc())] }]);
        expect(next).toBeGreaterThan(log.lastId);
        expect((await history(scaled)).at(-1)!.id).toBeGreaterThan(embeddedHistory.at(-1)!.id);
      } finally {
        await scaled.close();
        await embedded.close();
      }

      const second = await run(dir, url);
      expect(second.code).toBe(0);
      expect(second.out.at(-1)).toMatch(/: 0 of \d+ rows added, \d+ already there\.$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a directory without seam.db, a URL that is not PostgreSQL, a file that is not a database, an older schema and an unreachable PostgreSQL, by name', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'seam-migrate-empty-'));
    try {
      const none = await run(empty, pgServer.url);
      expect(none.code).toBe(1);
      expect(none.err.join('\n')).toMatch(/no seam\.db in /);
      expect((await run(empty, 'mysql://seam@127.0.0.1/seam')).code).toBe(2);
      // Not a database, then a database of an older schema: refused by name, nothing written to PostgreSQL.
      const url = await pgServer.createDatabase('migrate_refused');
      writeFileSync(join(empty, 'seam.db'), 'HloModule m\n'.repeat(1_000));
      const garbage = await run(empty, url);
      expect(garbage.code).toBe(1);
      expect(garbage.err.join('\n')).toMatch(/cannot be read as a Seam database/);
      rmSync(join(empty, 'seam.db'));
      const old = new Database(join(empty, 'seam.db'));
      old.exec(`CREATE TABLE rooms (id TEXT PRIMARY KEY, title TEXT NOT NULL, created_at INTEGER NOT NULL);
        CREATE TABLE blobs (sha256 TEXT PRIMARY KEY, bytes INTEGER NOT NULL, gzip BLOB NOT NULL, analysis_gzip BLOB NOT NULL);
        CREATE TABLE documents (id TEXT PRIMARY KEY, room_id TEXT NOT NULL, sha256 TEXT NOT NULL, title TEXT NOT NULL, kind TEXT NOT NULL, bytes INTEGER NOT NULL, created_at INTEGER NOT NULL);
        INSERT INTO rooms VALUES ('r', 'old', 1);`);
      old.close();
      const outdated = await run(empty, url);
      expect(outdated.code).toBe(1);
      expect(outdated.err.join('\n')).toMatch(/documents lacks added_by, capture_id, module_group.*older Seam/);
      const check = openPool(url, 1);
      try {
        expect((await check.query("SELECT to_regclass('rooms') AS t")).rows[0].t).toBeNull();
      } finally {
        await check.end();
      }
      rmSync(join(empty, 'seam.db'));
      expect((await run(empty)).code).toBe(2);
      const written = await startTestServer({ dataDir: empty });
      await createRoom(written);
      await written.close();
      const unreachable = await run(empty, `postgres://seam:hunter2@127.0.0.1:${await freePort()}/seam`);
      expect(unreachable.code).toBe(1);
      expect(unreachable.err.join('\n')).toMatch(/store unavailable/);
      expect(unreachable.err.join('\n')).not.toContain('hunter2');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
