import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { OpAggregate } from '@seam/shared/trace';
import { ensureBenchVenv, TRACE_REFERENCE_SCRIPT } from '@seam/runners';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRoom, startTestServer, type TestServer } from '../helpers/server';

/** One op as the reference script prints it. */
interface RefOp { readonly module: string; readonly op: string; readonly count: number; readonly totalUs: number }
interface XProfReading { readonly reader: { events: number; ops: RefOp[] }; readonly traceViewer: { events: number; ops: RefOp[] }; readonly opProfile: { deviceType: string; programs: number } }

const run = promisify(execFile);
const XPLANE = fileURLToPath(new URL('../fixtures/trace/mlp.xplane.pb', import.meta.url));

let server: TestServer;
let seam: OpAggregate[];
let xprof: XProfReading;

// The first run installs XProf from PyPI into runners/.venv-bench (about a minute); later runs find it ready.
beforeAll(async () => {
  const [venv, s] = await Promise.all([ensureBenchVenv(), startTestServer()]);
  server = s;
  const reading = run(venv.python, [TRACE_REFERENCE_SCRIPT, 'xplane', XPLANE], { timeout: 120_000, maxBuffer: 64 * 1024 * 1024 });
  const room = await createRoom(server, 'xprof');
  const res = await fetch(`${server.url}/api/rooms/${room.id}/documents?title=mlp.xplane.pb`, {
    method: 'POST', headers: { authorization: `Bearer ${room.tokens.annotator}`, 'content-type': 'application/octet-stream' }, body: readFileSync(XPLANE),
  });
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };
  seam = (await (await fetch(`${server.url}/api/rooms/${room.id}/documents/${id}/trace/ops`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } })).json()) as OpAggregate[];
  xprof = JSON.parse((await reading).stdout) as XProfReading;
}, 20 * 60_000);
afterAll(async () => {
  await server?.close();
});

/** Each reference op has Seam's row with the same count and a total within 1%, and Seam has no other. */
function expectAgreement(ref: readonly RefOp[], key: (o: { module: string; op: string }) => string): void {
  expect(ref.length).toBeGreaterThan(0);
  expect(seam.map(key).sort()).toEqual(ref.map(key).sort());
  for (const r of ref) {
    const o = seam.find((x) => key(x) === key(r))!;
    expect(o.count, key(r)).toBe(r.count);
    expect(Math.abs(o.totalUs - r.totalUs), key(r)).toBeLessThanOrEqual(r.totalUs * 0.01);
  }
}

describe('the op table agrees with XProf on a real CPU xplane.pb', () => {
  it('has the ops XProf’s XPlane reader finds (events that carry hlo_op), with the same occurrences and totals within 1%', () => {
    expect(xprof.reader.events).toBe(103);
    expectAgreement(xprof.reader.ops, (o) => o.op);
  });

  it('has the (module, op) rows of XProf’s trace-viewer conversion, with the same occurrences and totals within 1%', () => {
    expectAgreement(xprof.traceViewer.ops, (o) => `${o.module}\u0000${o.op}`);
    expect(seam.every((o) => o.module === 'jit_mlp')).toBe(true);
  });

  it('is computed where XProf builds no op profile: a CPU-only trace', () => {
    expect(xprof.opProfile).toMatchObject({ deviceType: 'CPU_ONLY', programs: 0 });
  });
});
