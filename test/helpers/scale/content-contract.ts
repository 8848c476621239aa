import { createHash, randomBytes } from 'node:crypto';
import { constants, gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import type { DocumentMeta } from '@seam/shared/model';
import type { StoredBlob } from '../../../server/src/store/documents-store';
import { MAX_PRESENTER_BYTES, MAX_ROW_VALUE_BYTES } from '../../../server/src/store/shared-input';
import { BODY_PIECE_BYTES, type SharedStore } from '../../../server/src/store/shared-store';
import { StoreInputError } from '../../../server/src/store/store-errors';
import { EMPTY_STATE, HistoryRowKind, type HistoryRow } from '../../../server/src/teaching/replay/history-store';
import type { StoredTrace } from '../../../server/src/trace/stored-form';
import { hashes, keyUpdates, type ContractBackend, type ContractClock } from './store-contract';

const gz = (data: string | Uint8Array, level: number = constants.Z_DEFAULT_COMPRESSION) => gzipSync(data, { level });
const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
const text = (gzip: Uint8Array | undefined) => (gzip ? gunzipSync(gzip).toString() : undefined);
/** Whether two byte arrays hold the same bytes (compared as buffers: a 9 MiB `toEqual` would take minutes). */
const same = (a: Uint8Array | undefined, b: Uint8Array): boolean => a !== undefined && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);

/** A dump: its metadata and its stored bodies, from its text. */
function dump(body: string, id: string, extra: Partial<DocumentMeta> = {}): { meta: DocumentMeta; blob: StoredBlob } {
  return {
    meta: { id, title: `${id}.txt`, kind: 'hlo', bytes: body.length, sha256: sha256(body), createdAt: 1_700_000_000_000, ...extra },
    blob: { gzip: gz(body), analysisGzip: gz(JSON.stringify({ of: id })), parts: { views: gz(`{"views":"${id}"}`), keys: gz(`{"keys":"${id}"}`) } },
  };
}

/** A stored trace whose parts and blocks say what they are when gunzipped. */
function trace(tag: string, blocks: readonly [number, number, number, number][]): StoredTrace {
  return {
    summary: gz(`summary ${tag}`),
    ops: gz(`ops ${tag}`),
    strings: gz(`strings ${tag}`),
    overview: gz(`overview ${tag}`),
    blocks: blocks.map(([track, block, startUs, endUs]) => ({ track, block, startUs, endUs, gzip: gz(`${tag} t${track}b${block}`) })),
  };
}

/** The keys of map `m` in the document a history base and its entries rebuild. */
function replayedKeys(base: Uint8Array, rows: readonly HistoryRow[]): string[] {
  const doc = new Y.Doc();
  Y.applyUpdate(doc, base);
  for (const r of rows) if (r.kind === HistoryRowKind.update) Y.applyUpdate(doc, r.data);
  const keys = [...doc.getMap('m').keys()].sort();
  doc.destroy();
  return keys;
}

/** The whole history of a room, in order. */
const allRows = async (store: SharedStore, roomId: string) => (await store.history.page(roomId, 0, Number.MAX_SAFE_INTEGER, undefined, 10_000, 1 << 30)).rows;

/**
 * The content stores' contract (documents and blobs, traces, the replay history), run against
 * every backend as `describeSharedStore` is: `open(clock)` gives a fresh, empty backend.
 */
export function describeContentStores(name: string, open: (clock: ContractClock) => Promise<ContractBackend>): void {
  describe(`shared store contract, content: ${name}`, () => {
    let backend: ContractBackend | undefined;
    const start = async (...rooms: string[]) => {
      backend = await open({ t: 1_000 });
      for (const id of rooms) await backend.store.rooms.create({ id, title: id, createdAt: 1 }, hashes(id));
      return backend.store;
    };
    afterEach(async () => {
      await backend?.cleanup();
      backend = undefined;
    });

    describe('documents and blobs', () => {
      it('stores a dump once by sha256 across rooms, lists each room its documents and serves the bodies gzipped as given', async () => {
        const store = await start('r1', 'r2');
        const a = dump('HloModule a\n', 'd1', { addedBy: 'runner:cpu-1', captureId: 'cap_1' });
        await store.documents.add('r1', a.meta, a.blob);
        // The same content added to another room with other bodies keeps the stored ones.
        const copyMeta: DocumentMeta = { id: 'd2', title: 'copy', kind: a.meta.kind, bytes: a.meta.bytes, sha256: a.meta.sha256, createdAt: a.meta.createdAt + 1 };
        await store.documents.add('r2', copyMeta, { ...a.blob, analysisGzip: gz('{"other":1}'), parts: { views: gz('{}'), keys: gz('{}') } });
        expect(same(await store.documents.textGzip(a.meta.sha256), a.blob.gzip)).toBe(true);
        expect(text(await store.documents.textGzip(a.meta.sha256))).toBe('HloModule a\n');
        expect(text(await store.documents.analysisGzip(a.meta.sha256))).toBe('{"of":"d1"}');
        expect(text(await store.documents.analysisPartGzip(a.meta.sha256, 'views'))).toBe('{"views":"d1"}');
        expect(await store.documents.list('r1')).toEqual([a.meta]);
        expect(await store.documents.list('r2')).toEqual([copyMeta]);
        expect(await store.documents.get('r2', 'd2')).toEqual(copyMeta);
        expect(await store.documents.get('r1', 'd2')).toBeUndefined();
        expect(await store.documents.usage('r1')).toEqual({ documents: 1, bytes: a.meta.bytes });
        expect(await store.documents.usage('r3')).toEqual({ documents: 0, bytes: 0 });
        expect(await store.documents.hasBlob(a.meta.sha256)).toBe(true);
        expect(await store.documents.hasBlob(sha256('never stored'))).toBe(false);
        expect(await store.documents.roomHasBlob('r2', a.meta.sha256)).toBe(true);
        expect(await store.documents.roomHasBlob('r3', a.meta.sha256)).toBe(false);
        expect(await store.documents.textGzip(sha256('never stored'))).toBeUndefined();
        await store.documents.putAnalysisParts(a.meta.sha256, { views: gz('{"views":2}'), keys: gz('{"keys":2}') });
        expect(text(await store.documents.analysisPartGzip(a.meta.sha256, 'views'))).toBe('{"views":2}');
        expect(text(await store.documents.analysisPartGzip(a.meta.sha256, 'keys'))).toBe('{"keys":2}');
      });

      it('keeps a body larger than one storage chunk whole, byte for byte', async () => {
        const store = await start('r');
        // Random bytes stored (level 0), so the gzip is as large as the text: over two 4 MiB chunks.
        const body = randomBytes(9 * 1024 * 1024 + 17);
        const meta: DocumentMeta = { id: 'big', title: 'big.pb', kind: 'trace', bytes: body.length, sha256: sha256(body), createdAt: 5 };
        const blob: StoredBlob = { gzip: gz(body, 0), analysisGzip: gz(body.subarray(0, 5 * 1024 * 1024), 0) };
        await store.documents.add('r', meta, blob);
        expect(same(await store.documents.textGzip(meta.sha256), blob.gzip)).toBe(true);
        expect(same(await store.documents.analysisGzip(meta.sha256), blob.analysisGzip)).toBe(true);
        expect(await store.documents.analysisPartGzip(meta.sha256, 'views')).toBeUndefined();
        const read = await store.documents.textGzipPieces(meta.sha256);
        expect(read?.bytes).toBe(blob.gzip.length);
        const pieces: Uint8Array[] = [];
        for await (const piece of read!.pieces) pieces.push(piece);
        expect(pieces.map((p) => p.length)).toEqual([BODY_PIECE_BYTES, BODY_PIECE_BYTES, blob.gzip.length - 2 * BODY_PIECE_BYTES]);
        expect(Buffer.concat(pieces).equals(blob.gzip)).toBe(true);
        expect(await store.documents.textGzipPieces(sha256('never stored'))).toBeUndefined();
        // The analysis is read in pieces the same way (the whole analysis is served from them).
        const analysis = await store.documents.analysisGzipPieces(meta.sha256);
        expect(analysis?.bytes).toBe(blob.analysisGzip.length);
        const parts: Uint8Array[] = [];
        for await (const piece of analysis!.pieces) parts.push(piece);
        expect(parts.map((p) => p.length)).toEqual([BODY_PIECE_BYTES, blob.analysisGzip.length - BODY_PIECE_BYTES]);
        expect(Buffer.concat(parts).equals(blob.analysisGzip)).toBe(true);
        expect(await store.documents.analysisGzipPieces(sha256('never stored'))).toBeUndefined();
      });

      it('lists an imported folder all or nothing: module refs without pass dumps, files by path, and moves a path', async () => {
        const store = await start('r');
        const layer = dump('HloModule jit_f, entry\n', 'm1', { module: { groupId: 'g1', name: 'jit_f', number: 3, path: 'dump/module_0003.jit_f.txt' } });
        const pass = dump('HloModule jit_f, pass\n', 'm2', {
          createdAt: 1_700_000_000_001,
          module: { groupId: 'g1', name: 'jit_f', number: 3, path: 'dump/module_0003.jit_f.0001.fusion.after.txt', pass: { index: 1, pipeline: 'spmd', name: 'fusion', when: 'after' } },
        });
        const loose = dump('notes\n', 'm3', { createdAt: 1_700_000_000_002, kind: 'text' });
        for (const d of [layer, pass, loose]) await store.documents.putBlob(d.meta.sha256, d.meta.bytes, d.blob);
        await expect(store.documents.addAll('r', [{ meta: layer.meta }], () => {
          throw new Error('over quota');
        })).rejects.toThrow('over quota');
        expect(await store.documents.list('r')).toEqual([]);
        await store.documents.addAll('r', [{ meta: layer.meta }, { meta: pass.meta }, { meta: loose.meta, path: 'notes/a.txt' }], () => undefined);
        expect(await store.documents.list('r')).toEqual([layer.meta, pass.meta, loose.meta]);
        expect(await store.documents.moduleRefs('r')).toEqual([layer.meta.module]);
        expect(await store.documents.hasFile('r', 'notes/a.txt', loose.meta.sha256)).toBe(true);
        expect(await store.documents.hasFile('r', 'notes/a.txt', layer.meta.sha256)).toBe(false);
        expect(await store.documents.hasFile('r', 'dump/module_0003.jit_f.txt', layer.meta.sha256)).toBe(true);
        await store.documents.setPath('r', 'm3', 'notes/b.txt');
        await store.documents.setPath('r', 'm1', 'elsewhere.txt');
        expect(await store.documents.hasFile('r', 'notes/b.txt', loose.meta.sha256)).toBe(true);
        expect(await store.documents.hasFile('r', 'notes/a.txt', loose.meta.sha256)).toBe(false);
        expect(await store.documents.hasFile('r', 'dump/module_0003.jit_f.txt', layer.meta.sha256)).toBe(true);
        // A second listing that repeats an id stores none of its documents.
        const fresh = { ...loose.meta, id: 'm4' };
        await expect(store.documents.addAll('r', [{ meta: fresh }, { meta: layer.meta }])).rejects.toThrow();
        expect((await store.documents.list('r')).map((d) => d.id)).toEqual(['m1', 'm2', 'm3']);
        await store.documents.remove('r', 'm3');
        expect((await store.documents.list('r')).map((d) => d.id)).toEqual(['m1', 'm2']);
        expect(await store.documents.hasBlob(loose.meta.sha256)).toBe(true);
      });

      it('refuses a document of a blob never stored, or of a room that does not exist, storing nothing', async () => {
        const store = await start('r');
        const a = dump('HloModule orphan\n', 'o1');
        await expect(store.documents.add('r', a.meta, undefined)).rejects.toThrow();
        await expect(store.documents.add('no-such-room', a.meta, a.blob)).rejects.toThrow();
        await expect(store.documents.addAll('r', [{ meta: a.meta }])).rejects.toThrow();
        await expect(store.documents.putAnalysisParts(a.meta.sha256, { views: gz('{}'), keys: gz('{}') })).rejects.toThrow();
        expect(await store.documents.hasBlob(a.meta.sha256)).toBe(false);
        expect(await store.documents.list('r')).toEqual([]);
      });

      it('stores a blob added by two instances at once into two rooms once, with both documents', async () => {
        const store = await start('r1', 'r2');
        const other = await backend!.second();
        const body = randomBytes(5 * 1024 * 1024);
        const meta: DocumentMeta = { id: 'x1', title: 'x', kind: 'trace', bytes: body.length, sha256: sha256(body), createdAt: 1 };
        const blob: StoredBlob = { gzip: gz(body, 0), analysisGzip: gz('{}') };
        await Promise.all([store.documents.add('r1', meta, blob), other.documents.add('r2', { ...meta, id: 'x2' }, blob)]);
        expect((await store.documents.list('r1')).map((d) => d.id)).toEqual(['x1']);
        expect((await other.documents.list('r2')).map((d) => d.id)).toEqual(['x2']);
        expect(same(await other.documents.textGzip(meta.sha256), blob.gzip)).toBe(true);
      });

      it("checks a room's quota with its usage inside the listing, so that instances adding at once never pass it together", async () => {
        const store = await start('r', 'other');
        const second = await backend!.second();
        const docs = Array.from({ length: 6 }, (_, i) => dump(`HloModule q${i}\n`, `q${i}`, { createdAt: 1_700_000_000_000 + i }));
        for (const d of docs) await store.documents.putBlob(d.meta.sha256, d.meta.bytes, d.blob);
        await store.documents.add('other', { ...docs[0]!.meta, id: 'elsewhere' }, undefined);
        // Room 'r' may hold three: one is there, six try at once through two instances, single and as a listing.
        await store.documents.add('r', docs[0]!.meta, undefined, (used) => expect(used).toEqual({ documents: 0, bytes: 0 }));
        const seen: number[] = [];
        const atMostThree = (used: { documents: number; bytes: number }) => {
          seen.push(used.documents);
          if (used.documents >= 3) throw new Error(`over quota at ${used.documents}`);
        };
        const tries = docs.slice(1).map((d, i) => {
          const via = i % 2 === 0 ? store : second;
          return i < 3 ? via.documents.add('r', d.meta, undefined, atMostThree) : via.documents.addAll('r', [{ meta: d.meta }], atMostThree);
        });
        const settled = await Promise.allSettled(tries);
        expect(settled.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
        for (const r of settled) if (r.status === 'rejected') expect(String(r.reason)).toMatch(/over quota at 3/);
        const listed = await store.documents.list('r');
        expect(listed).toHaveLength(3);
        expect(await second.documents.usage('r')).toEqual({ documents: 3, bytes: listed.reduce((n, d) => n + d.bytes, 0) });
        expect(seen.filter((n) => n < 3).sort()).toEqual([1, 2]);
      });

      it('refuses malformed, hostile and oversized document calls with StoreInputError, storing nothing', async () => {
        const store = await start('r');
        const { meta, blob } = dump('HloModule m\n', 'd');
        const huge = Buffer.allocUnsafe(MAX_ROW_VALUE_BYTES + 1);
        huge[0] = 0x1f;
        huge[1] = 0x8b;
        const cases: (() => Promise<unknown>)[] = [
          () => store.documents.add('', meta, blob),
          () => store.documents.add('r', { ...meta, sha256: meta.sha256.toUpperCase() }, blob),
          () => store.documents.add('r', { ...meta, sha256: '../../etc/passwd' }, blob),
          () => store.documents.add('r', { ...meta, id: '' }, blob),
          () => store.documents.add('r', { ...meta, title: 'a\0b' }, blob),
          () => store.documents.add('r', { ...meta, kind: 'exe' as never }, blob),
          () => store.documents.add('r', { ...meta, bytes: -1 }, blob),
          () => store.documents.add('r', { ...meta, createdAt: 1.5 }, blob),
          () => store.documents.add('r', { ...meta, module: { groupId: '', name: 'f', path: 'p' } }, blob),
          () => store.documents.add('r', { ...meta, module: { groupId: 'g', name: 'f\0', path: 'p' } }, blob),
          () => store.documents.add('r', meta, { ...blob, gzip: Buffer.from('plain text, not gzip') }),
          () => store.documents.add('r', meta, { ...blob, analysisGzip: 'text' as never }),
          () => store.documents.add('r', meta, { ...blob, parts: { views: gz('{}') } as never }),
          () => store.documents.add('r', meta, { ...blob, parts: { views: gz('{}'), keys: gz('{}'), evil: gz('{}') } as never }),
          () => store.documents.putBlob(meta.sha256, -1, blob),
          () => store.documents.putBlob('nope', 1, blob),
          () => store.documents.addAll('r', 'docs' as never),
          () => store.documents.addAll('r', [{ meta, path: 'a\0b' }]),
          () => store.documents.addAll('r', [{ meta }], 'check' as never),
          () => store.documents.analysisPartGzip(meta.sha256, 'all' as never),
          () => store.documents.textGzip('g'.repeat(64)),
          () => store.documents.textGzipPieces('../blobs'),
          () => store.documents.analysisGzipPieces('../blobs'),
          () => store.documents.putAnalysisParts(meta.sha256, { views: huge, keys: gz('{}') }),
          () => store.documents.add('r', meta, { ...blob, parts: { views: huge, keys: gz('{}') } }),
        ];
        for (const c of cases) await expect(c()).rejects.toBeInstanceOf(StoreInputError);
        expect(await store.documents.hasBlob(meta.sha256)).toBe(false);
        expect(await store.documents.list('r')).toEqual([]);
      });
    });

    describe('traces', () => {
      const shaOf = sha256('a trace');
      const storeBlob = (store: SharedStore) => store.documents.putBlob(shaOf, 7, { gzip: gz('a trace'), analysisGzip: gz('{}') });
      const blockTexts = async (store: SharedStore, track: number, fromUs: number, toUs: number) =>
        (await store.traces.blocks(shaOf, track, fromUs, toUs)).map((b) => text(b));

      it('stores a reduction and reads the blocks a window overlaps, in order; a new reduction replaces every block', async () => {
        const store = await start();
        await storeBlob(store);
        expect(await store.traces.has(shaOf)).toBe(false);
        await store.traces.put(shaOf, trace('v1', [[0, 0, 0, 100], [0, 1, 100.5, 250], [0, 2, 250, 400], [1, 0, 0, 1000]]));
        expect(await store.traces.has(shaOf)).toBe(true);
        expect(text(await store.traces.part(shaOf, 'summary'))).toBe('summary v1');
        expect(text(await store.traces.part(shaOf, 'strings'))).toBe('strings v1');
        expect(text(await store.traces.overview(shaOf))).toBe('overview v1');
        expect(await blockTexts(store, 0, 120, 260)).toEqual(['v1 t0b1', 'v1 t0b2']);
        expect(await blockTexts(store, 0, 99.5, 99.5)).toEqual(['v1 t0b0']);
        expect(await blockTexts(store, 0, 100.25, 100.25)).toEqual([]);
        expect(await blockTexts(store, 0, Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY)).toEqual(['v1 t0b0', 'v1 t0b1', 'v1 t0b2']);
        expect(await blockTexts(store, 1, 500, 600)).toEqual(['v1 t1b0']);
        expect(await blockTexts(store, 2, 0, 1000)).toEqual([]);
        await store.traces.put(shaOf, trace('v2', [[0, 0, 0, 50]]));
        expect(await blockTexts(store, 0, 0, 1000)).toEqual(['v2 t0b0']);
        expect(await blockTexts(store, 1, 0, 1000)).toEqual([]);
        expect(text(await store.traces.part(shaOf, 'ops'))).toBe('ops v2');
        await store.traces.putOverview(shaOf, gz('overview again'));
        expect(text(await store.traces.overview(shaOf))).toBe('overview again');
        expect(await store.traces.part(sha256('other'), 'summary')).toBeUndefined();
      });

      it('writes and reads back blocks larger in all than one statement carries', async () => {
        const store = await start();
        await storeBlob(store);
        const big = Array.from({ length: 3 }, () => gz(randomBytes(12 * 1024 * 1024), 0));
        await store.traces.put(shaOf, { ...trace('big', []), blocks: big.map((gzip, block) => ({ track: 0, block, startUs: block * 10, endUs: block * 10 + 10, gzip })) });
        const read = await store.traces.blocks(shaOf, 0, 0, 100);
        expect(read).toHaveLength(3);
        read.forEach((b, i) => expect(same(b, big[i]!)).toBe(true));
      });

      it('stores a trace that two instances store at once, both succeeding, with one set of blocks', async () => {
        const store = await start();
        const other = await backend!.second();
        await storeBlob(store);
        const spans = Array.from({ length: 40 }, (_, i): [number, number, number, number] => [i % 2, i >> 1, i * 10, i * 10 + 10]);
        await Promise.all([store.traces.put(shaOf, trace('same', spans)), other.traces.put(shaOf, trace('same', spans)), store.traces.put(shaOf, trace('same', spans))]);
        expect(await blockTexts(other, 0, 0, 1_000)).toEqual(Array.from({ length: 20 }, (_, i) => `same t0b${i}`));
        expect(await blockTexts(store, 1, 0, 1_000)).toEqual(Array.from({ length: 20 }, (_, i) => `same t1b${i}`));
      });

      it('refuses the reduction of a blob never stored', async () => {
        const store = await start();
        await expect(store.traces.put(shaOf, trace('v1', [[0, 0, 0, 1]]))).rejects.toThrow();
        expect(await store.traces.has(shaOf)).toBe(false);
      });

      it('refuses malformed and hostile trace calls with StoreInputError, storing nothing', async () => {
        const store = await start();
        await storeBlob(store);
        const good = trace('v', [[0, 0, 0, 1]]);
        const huge = Buffer.allocUnsafe(MAX_ROW_VALUE_BYTES + 1);
        huge[0] = 0x1f;
        huge[1] = 0x8b;
        const cases: (() => Promise<unknown>)[] = [
          () => store.traces.put('x', good),
          () => store.traces.put(shaOf, { ...good, summary: Buffer.from('{"not":"gzip"}') }),
          () => store.traces.put(shaOf, { ...good, blocks: 'blocks' as never }),
          () => store.traces.put(shaOf, trace('v', [[0, 0, Number.NaN, 1]])),
          () => store.traces.put(shaOf, trace('v', [[-1, 0, 0, 1]])),
          () => store.traces.put(shaOf, trace('v', [[0, 0.5, 0, 1]])),
          () => store.traces.put(shaOf, trace('v', [[0, 0, 0, 1], [0, 0, 1, 2]])),
          () => store.traces.put(shaOf, { ...good, blocks: [{ ...good.blocks[0]!, gzip: huge }] }),
          () => store.traces.putOverview(shaOf, Buffer.from('overview')),
          () => store.traces.part(shaOf, 'events' as never),
          () => store.traces.blocks(shaOf, 0, Number.NaN, 1),
          () => store.traces.blocks(shaOf, 1.5, 0, 1),
        ];
        for (const c of cases) await expect(c()).rejects.toBeInstanceOf(StoreInputError);
        expect(await store.traces.has(shaOf)).toBe(false);
        expect(await store.traces.overview(shaOf)).toBeUndefined();
      });
    });

    describe('replay history', () => {
      it('records every appended update in its room history, in commit order, with times that never go back', async () => {
        const store = await start();
        const before = Date.now();
        const updates = keyUpdates(['a', 'b', 'c', 'd']);
        await store.roomLog.appendRooms([{ roomId: 'r', updates: updates.slice(0, 2) }, { roomId: 'o', updates: [updates[0]!] }]);
        await store.roomLog.appendRooms([{ roomId: 'r', updates: [updates[2]!] }]);
        await store.roomLog.appendRooms([{ roomId: 'r', updates: [updates[3]!] }]);
        const s = await store.history.start('r', Date.now());
        expect([...s.base]).toEqual([...EMPTY_STATE]);
        expect(s.startsAt).toBeGreaterThanOrEqual(before);
        expect(s.endsAt).toBeGreaterThanOrEqual(s.startsAt);
        expect(s.dropped).toBe(false);
        const rows = await allRows(store, 'r');
        expect(rows.map((r) => [...r.data])).toEqual(updates.map((u) => [...u]));
        expect(rows.every((r) => r.kind === HistoryRowKind.update)).toBe(true);
        for (let i = 1; i < rows.length; i++) {
          expect(rows[i]!.at).toBeGreaterThanOrEqual(rows[i - 1]!.at);
          expect(rows[i]!.id).toBeGreaterThan(rows[i - 1]!.id);
        }
        expect(rows.at(-1)!.at).toBe(s.endsAt);
        expect(replayedKeys(s.base, rows)).toEqual(['a', 'b', 'c', 'd']);
        expect(await allRows(store, 'o')).toHaveLength(1);
        const nobody = await store.history.start('nobody', 42);
        expect(nobody).toMatchObject({ startsAt: 42, endsAt: 42, dropped: false });
        expect([...nobody.base]).toEqual([...EMPTY_STATE]);
      });

      it('stamps a presenter sample no earlier than the entry before it, and pages by time, cursor, count and bytes', async () => {
        const store = await start();
        const view = { docId: 'd1', topLine: 10, anchor: 3, head: 4, userId: 'u1', name: 'Ada' };
        await store.history.recordPresenter('p', 1_000, view);
        await store.history.recordPresenter('p', 2_000, { ...view, topLine: 20 });
        await store.history.recordPresenter('p', 3_000, null);
        await store.history.recordPresenter('p', 2_500, { ...view, topLine: 30 });
        expect(await store.history.presenterSamples('p', 10)).toEqual([
          { at: 1_000, view }, { at: 2_000, view: { ...view, topLine: 20 } }, { at: 3_000, view: null }, { at: 3_000, view: { ...view, topLine: 30 } },
        ]);
        expect(await store.history.presenterSamples('p', 1)).toEqual([{ at: 1_000, view }]);
        const s = await store.history.start('p', 9_999);
        expect(s).toMatchObject({ startsAt: 1_000, endsAt: 3_000, dropped: false });
        expect([...s.base]).toEqual([...EMPTY_STATE]);
        const ats = (rows: readonly HistoryRow[]) => rows.map((r) => r.at);
        expect(ats((await store.history.page('p', 0, 2_000, undefined, 10, 1 << 20)).rows)).toEqual([1_000, 2_000]);
        expect(ats((await store.history.page('p', 1_500, 3_000, undefined, 10, 1 << 20)).rows)).toEqual([2_000, 3_000, 3_000]);
        const first = await store.history.page('p', 0, 5_000, undefined, 2, 1 << 20);
        expect(first.more).toBe(true);
        const last = first.rows.at(-1)!;
        const second = await store.history.page('p', 0, 5_000, { at: last.at, id: last.id }, 2, 1 << 20);
        expect(ats(second.rows)).toEqual([3_000, 3_000]);
        expect(second.more).toBe(false);
        // Past the first entry, a page stops before the byte bound; the first always comes.
        const small = await store.history.page('p', 0, 5_000, undefined, 10, 1);
        expect(small.rows).toHaveLength(1);
        expect(small.more).toBe(true);
        expect(small.rows[0]!.kind).toBe(HistoryRowKind.presenter);
      });

      it('pages a long history in commit order, cut by count or by bytes, and says when more remains', async () => {
        const store = await start();
        const updates = Array.from({ length: 700 }, (_, i) => new Uint8Array([i & 0xff, i >> 8, 7, 7, 7, 7, 7, 7, 7, 7]));
        await store.roomLog.appendRooms([{ roomId: 'long', updates: updates.slice(0, 400) }]);
        await store.roomLog.appendRooms([{ roomId: 'long', updates: updates.slice(400) }]);
        const numbers = (rows: readonly HistoryRow[]) => rows.map((r) => r.data[0]! + (r.data[1]! << 8));
        const all = await store.history.page('long', 0, Number.MAX_SAFE_INTEGER, undefined, 700, 1 << 20);
        expect(numbers(all.rows)).toEqual(updates.map((_, i) => i));
        expect(all.more).toBe(false);
        const counted = await store.history.page('long', 0, Number.MAX_SAFE_INTEGER, undefined, 650, 1 << 20);
        expect(counted.rows).toHaveLength(650);
        expect(counted.more).toBe(true);
        const last = counted.rows.at(-1)!;
        const rest = await store.history.page('long', 0, Number.MAX_SAFE_INTEGER, { at: last.at, id: last.id }, 650, 1 << 20);
        expect(numbers(rest.rows)).toEqual(Array.from({ length: 50 }, (_, i) => 650 + i));
        expect(rest.more).toBe(false);
        const cut = await store.history.page('long', 0, Number.MAX_SAFE_INTEGER, undefined, 700, 5_005);
        expect(numbers(cut.rows)).toEqual(Array.from({ length: 500 }, (_, i) => i));
        expect(cut.more).toBe(true);
      });

      it('drops the oldest entries past the byte bound into a base that still rebuilds the document', async () => {
        const store = await start();
        const keys = Array.from({ length: 12 }, (_, i) => `key${i}`);
        const updates = keyUpdates(keys);
        for (const u of updates) await store.roomLog.appendRooms([{ roomId: 'r', updates: [u] }]);
        const total = updates.reduce((n, u) => n + u.length, 0);
        const limits = { historyBytes: Math.floor(total / 2), historySeconds: 30 * 86_400 };
        const dropped = await store.history.trim('r', limits, Date.now());
        expect(dropped).toBeGreaterThan(0);
        const rows = await allRows(store, 'r');
        expect(rows).toHaveLength(updates.length - dropped);
        expect(rows.reduce((n, r) => n + r.data.length, 0)).toBeLessThanOrEqual(Math.floor(limits.historyBytes * 0.9));
        expect(rows.map((r) => [...r.data])).toEqual(updates.slice(dropped).map((u) => [...u]));
        const s = await store.history.start('r', Date.now());
        expect(s.dropped).toBe(true);
        expect(s.startsAt).toBeLessThanOrEqual(rows[0]!.at);
        expect(replayedKeys(s.base, rows)).toEqual([...keys].sort());
        expect(await store.history.trim('r', limits, Date.now())).toBe(0);
      });

      it('drops the entries older than the age bound', async () => {
        const store = await start();
        for (const at of [1_000, 2_000, 3_000]) await store.history.recordPresenter('p', at, null);
        expect(await store.history.trim('p', { historyBytes: 1 << 30, historySeconds: 1 }, 2_500)).toBe(1);
        expect((await allRows(store, 'p')).map((r) => r.at)).toEqual([2_000, 3_000]);
        expect(await store.history.start('p', 9_999)).toMatchObject({ startsAt: 1_000, endsAt: 3_000, dropped: true });
        const keys = ['x', 'y', 'z'];
        for (const u of keyUpdates(keys)) await store.roomLog.appendRooms([{ roomId: 'r', updates: [u] }]);
        expect(await store.history.trim('r', { historyBytes: 1 << 30, historySeconds: 86_400 }, Date.now() + 2 * 86_400_000)).toBe(3);
        expect(await allRows(store, 'r')).toEqual([]);
        expect(replayedKeys((await store.history.start('r', Date.now())).base, [])).toEqual(keys);
      });

      it('keeps the history of two instances appending to one room at once in the log order, each update once', async () => {
        const store = await start();
        const other = await backend!.second();
        const updates = keyUpdates(Array.from({ length: 60 }, (_, i) => `k${i}`));
        await Promise.all([0, 1].map((side) => Promise.all(updates.filter((_, i) => i % 2 === side)
          .map((u) => (side === 0 ? store : other).roomLog.appendRooms([{ roomId: 'x', updates: [u] }])))));
        const rows = await allRows(store, 'x');
        const log = (await other.roomLog.load('x')).updates;
        expect(rows.map((r) => Buffer.from(r.data).toString('hex'))).toEqual(log.map((u) => Buffer.from(u).toString('hex')));
        expect(new Set(rows.map((r) => Buffer.from(r.data).toString('hex'))).size).toBe(60);
        for (let i = 1; i < rows.length; i++) expect(rows[i]!.at).toBeGreaterThanOrEqual(rows[i - 1]!.at);
      });

      it('refuses malformed and hostile history calls with StoreInputError, recording nothing', async () => {
        const store = await start();
        const cases: (() => Promise<unknown>)[] = [
          () => store.history.recordPresenter('', 1, null),
          () => store.history.recordPresenter('p', -1, null),
          () => store.history.recordPresenter('p', 1, 'scrolling' as never),
          () => store.history.recordPresenter('p', 1, [1, 2] as never),
          () => store.history.recordPresenter('p', 1, { name: 'a\0b' } as never),
          () => store.history.recordPresenter('p', 1, { name: 'x'.repeat(MAX_PRESENTER_BYTES) } as never),
          () => store.history.trim('p', { historyBytes: -1, historySeconds: 1 }, 1),
          () => store.history.trim('p', null as never, 1),
          () => store.history.trim('p', { historyBytes: 1, historySeconds: 1 }, Number.NaN),
          () => store.history.start('p', Number.POSITIVE_INFINITY),
          () => store.history.presenterSamples('p', 0),
          () => store.history.page('p', 0, 10, { at: 'x', id: 1 } as never, 1, 1),
          () => store.history.page('p', 0, 10, undefined, 0, 1),
          () => store.history.page('p', -5, 10, undefined, 1, 1),
          () => store.history.page('p\0', 0, 10, undefined, 1, 1),
        ];
        for (const c of cases) await expect(c()).rejects.toBeInstanceOf(StoreInputError);
        expect(await allRows(store, 'p')).toEqual([]);
        const s = await store.history.start('p', 7);
        expect(s).toMatchObject({ startsAt: 7, endsAt: 7, dropped: false });
        expect([...s.base]).toEqual([...EMPTY_STATE]);
      });
    });
  });
}
