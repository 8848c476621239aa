import { create, toBinary } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import type { OpAggregate, TraceSummary } from '@seam/shared/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { XEventSchema, XLineSchema, XPlaneSchema } from '../../shared/src/trace/gen/xplane_pb';
import { createRoom, startTestServer, type CreatedRoom, type TestServer } from '../helpers/server';

/** Events of the one line of the generated plane: about 33 MB of XSpace. */
const EVENTS = 1_500_000;
/** The reducer worker's heap (SEAM_ANALYZER_HEAP_MB): decoding that plane, or that line, whole would need several times it. */
const HEAP_MB = 24;

/**
 * An XSpace of one device plane whose one "XLA Ops" line holds `EVENTS` events (each tagged with
 * an op and a module by stat references, as XLA writes them), its metadata after its lines as
 * TSL serializes it. The events are one encoded block repeated, so the file is made in a moment.
 */
function bigXSpace(): Uint8Array {
  const block = toBinary(XLineSchema, create(XLineSchema, {
    events: Array.from({ length: 1000 }, (_, k) => create(XEventSchema, {
      metadataId: BigInt(1 + (k % 10)), data: { case: 'offsetPs', value: 0n }, durationPs: 1_000_000n,
      stats: [{ metadataId: 1n, value: { case: 'refValue', value: BigInt(100 + (k % 10)) } }, { metadataId: 2n, value: { case: 'refValue', value: 99n } }],
    })),
  }));
  const own = toBinary(XLineSchema, create(XLineSchema, { id: 1n, name: 'XLA Ops', timestampNs: 1000n }));
  const line = new Uint8Array(own.length + block.length * (EVENTS / 1000));
  line.set(own);
  for (let at = own.length; at < line.length; at += block.length) line.set(block, at);
  const ops = Array.from({ length: 10 }, (_, k) => `fusion.${k}`);
  const meta = toBinary(XPlaneSchema, create(XPlaneSchema, {
    eventMetadata: Object.fromEntries(ops.map((op, k) => [String(1 + k), { id: BigInt(1 + k), name: op }])),
    statMetadata: Object.fromEntries([['1', { id: 1n, name: 'hlo_op' }], ['2', { id: 2n, name: 'hlo_module' }], ['99', { id: 99n, name: 'jit_train_step' }],
      ...ops.map((op, k) => [String(100 + k), { id: BigInt(100 + k), name: op }])]),
  }));
  const plane = new BinaryWriter().tag(2, WireType.LengthDelimited).string('/device:GPU:0').tag(3, WireType.LengthDelimited).bytes(line).finish();
  const planeBytes = new Uint8Array(plane.length + meta.length);
  planeBytes.set(plane);
  planeBytes.set(meta, plane.length);
  return new BinaryWriter().tag(1, WireType.LengthDelimited).bytes(planeBytes).tag(4, WireType.LengthDelimited).string('bench').finish();
}

let server: TestServer;
let room: CreatedRoom;
/** A server whose rooms may hold 200 kB of documents. */
let small: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { SEAM_ANALYZER_HEAP_MB: String(HEAP_MB) } });
  room = await createRoom(server, 'a large xplane');
  small = await startTestServer({ env: { SEAM_ROOM_DOCUMENT_BYTES: '200000' } });
});
afterAll(async () => {
  await server?.close();
  await small?.close();
});

describe('an xplane.pb larger than the reducer may hold', () => {
  it(`reduces a ${EVENTS.toLocaleString('en-US')}-event plane in one line through a worker with a ${HEAP_MB} MB heap, reading it back in pieces`, async () => {
    const bytes = bigXSpace();
    expect(bytes.length).toBeGreaterThan(30 * 1024 * 1024);
    const res = await fetch(`${server.url}/api/rooms/${room.id}/documents?title=big.xplane.pb`, {
      method: 'POST', headers: { authorization: `Bearer ${room.tokens.annotator}`, 'content-type': 'application/octet-stream' }, body: bytes as Uint8Array<ArrayBuffer>,
    });
    const body = (await res.json()) as { id: string };
    expect(res.status, JSON.stringify(body)).toBe(201);
    const get = async <T>(what: string): Promise<T> => (await (await fetch(`${server.url}/api/rooms/${room.id}/documents/${body.id}/trace/${what}`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } })).json()) as T;
    const summary = await get<TraceSummary>('summary');
    expect(summary.events).toBe(EVENTS);
    expect(summary.tracks.map((t) => [t.process, t.name, t.kind, t.events])).toEqual([['/device:GPU:0', 'XLA Ops', 'device', EVENTS]]);
    const ops = await get<OpAggregate[]>('ops');
    expect(ops).toHaveLength(10);
    for (const o of ops) expect(o).toMatchObject({ module: 'jit_train_step', count: EVENTS / 10, meanUs: 1 });
  });
});

describe('a trace larger than its room has room for', () => {
  it('is refused as soon as its bytes pass what the room has left, before the rest is read or reduced, and nothing is stored', async () => {
    const r = await createRoom(small, 'a small room');
    const event = '{"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":"fusion.1","args":{"hlo_op":"fusion.1"}}';
    // 300 kB of events, then text that is not JSON: read to its end, it would be refused as unreadable (400).
    const body = `{"traceEvents":[${Array.from({ length: 3500 }, () => event).join(',')},}}}not json`;
    const res = await fetch(`${small.url}/api/rooms/${r.id}/documents?title=big.json`, {
      method: 'POST', headers: { authorization: `Bearer ${r.tokens.annotator}`, 'content-type': 'application/octet-stream' }, body,
    });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { code: string; message: string } }).error.message).toMatch(/may hold at most 200000 bytes/);
    const documents = ((await (await fetch(`${small.url}/api/rooms/${r.id}`, { headers: { authorization: `Bearer ${r.tokens.viewer}` } })).json()) as { documents: unknown[] }).documents;
    expect(documents).toEqual([]);
  });
});
