import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addAnnotation, RoomKey, type CaptureEntry, type DocumentKind } from '@seam/shared/model';
import { LabFormatError, parseLab, readLabResults, readLabView, type LabResults, type LabView } from '@seam/shared/teaching';
import * as Y from 'yjs';
import { ingestDocument } from '../../ingest';
import { checkUpdate } from '../../sync/guard';
import { pino } from 'pino';
import { CloseCode } from '@seam/shared/protocol';
import { createApp, type AppDeps } from '../../app';
import { resolveConfig } from '../../config';
import { buildDeps } from '../../deps';
import { testApp, type TestApp, type TestRoom } from '../../testing';
import { loadLabs } from './lab-catalog';

const fixture = (path: string): string => readFileSync(new URL(`../../../../test/fixtures/lab/${path}`, import.meta.url), 'utf8');
const shippedLab = (id: string) => parseLab(`${id}.json`, readFileSync(new URL(`../../../../labs/${id}.json`, import.meta.url), 'utf8'));

let t: TestApp;
let room: TestRoom;
beforeEach(async () => {
  t = testApp();
  room = await t.room('class');
});
afterEach(() => t.close());

const open = (lab: string, token = room.tokens.owner) => t.call('POST', `/api/rooms/${room.id}/lab`, { token, json: { lab } });
const check = async (token = room.tokens.viewer): Promise<LabResults> => {
  const res = await t.call('POST', `/api/rooms/${room.id}/lab/check`, { token });
  expect(res.status).toBe(200);
  return ((await res.json()) as { results: LabResults }).results;
};
const doc = () => t.deps.rooms.get(room.id).doc;

/** A room on a server's dependencies. */
interface At {
  readonly deps: AppDeps;
  readonly roomId: string;
}

/** Stores a real capture's dumps as the capture service does once a runner finished: documents of the group, then its entry. */
async function finishCapture(labId: string, dir: string, kinds: readonly DocumentKind[], jobId = 'cap_lab1', { deps, roomId }: At = { deps: t.deps, roomId: room.id }): Promise<void> {
  const spec = shippedLab(labId).captures[0]!;
  const files: Record<string, string> = { jaxpr: 'jaxpr.txt', stablehlo: 'stablehlo.mlir', 'hlo-opt': 'hlo-opt.txt' };
  const ids: string[] = [];
  for (const kind of kinds) {
    const meta = await ingestDocument(deps, roomId, `${spec.entry}: ${kind}`, fixture(`${dir}/${files[kind]}`), { kind, captureId: jobId, addedBy: 'runner:test' });
    ids.push(meta.id);
  }
  const entry: CaptureEntry = {
    id: jobId, status: 'done', attempt: 1, entry: spec.entry, args: spec.args, capture: spec.capture, requestedBy: 'owner', createdAt: 1, updatedAt: 2, documents: ids,
  };
  deps.rooms.get(roomId).transact((d) => d.getMap(RoomKey.captures).set(jobId, { ...entry }));
}

/** Resolves once the lab results in `doc` satisfy `done`, as the server writes them. */
function resultsWhere(doc: Y.Doc, done: (r: LabResults | null) => boolean): Promise<LabResults | null> {
  return new Promise((resolve) => {
    const labMap = doc.getMap(RoomKey.lab);
    const seen = () => {
      const r = readLabResults(doc);
      if (!done(r)) return;
      labMap.unobserve(seen);
      resolve(r);
    };
    labMap.observe(seen);
    seen();
  });
}

/** A spill annotation on the bf16 S×S scores of the room's optimized HLO (the LAB·2.2 fixture), by `who`, stating `body`. */
function spillNote(who: string, body: string, { deps, roomId }: At = { deps: t.deps, roomId: room.id }): void {
  const hlo = deps.store.documents.list(roomId).find((d) => d.kind === 'hlo-opt')!;
  const text = fixture('attention/hlo-opt.txt');
  const at = text.indexOf('%wrapped_convert.2 =');
  addAnnotation(deps.rooms.get(roomId).doc, {
    id: `n-${who}`, docId: hlo.id, from: at, to: at + 18, quote: { prefix: '', exact: text.slice(at, at + 18), suffix: '' }, kind: 'spill', body,
    author: { id: who, name: who.toUpperCase(), color: '#112233' }, createdAt: 1, resolved: false, replies: [], instruction: 'wrapped_convert.2',
  });
}

describe('labs API', () => {
  it('lists the shipped labs with their steps, to anyone', async () => {
    const res = await t.call('GET', '/api/labs');
    expect(res.status).toBe(200);
    const { labs } = (await res.json()) as { labs: Array<Pick<LabView, 'id' | 'code' | 'title' | 'steps'>> };
    expect(labs.map((l) => [l.id, l.code])).toEqual([['lab-2.1', 'LAB·2.1'], ['lab-2.2', 'LAB·2.2'], ['lab-2.3', 'LAB·2.3']]);
    expect(labs[1]!.steps.map((s) => [s.id, s.kind, s.perMember])).toEqual([['capture', 'capture-done', false], ['spill', 'spill-annotated', true]]);
  });

  it('opens a lab for the owner: its programs, its steps and open results in the room document', async () => {
    const res = await open('lab-2.1');
    expect(res.status).toBe(201);
    const body = (await res.json()) as { lab: LabView; results: LabResults };
    expect(body.lab.captures).toEqual([expect.objectContaining({ id: 'mlp', entry: 'f', args: ['bf16[32,64]', 'bf16[64,128]', 'bf16[128]'] })]);
    expect(readLabView(doc())).toEqual(body.lab);
    expect(doc().getMap<{ toString(): string }>(RoomKey.programs).get('mlp')?.toString()).toBe(shippedLab('lab-2.1').programs['mlp']);
    expect(body.results.room).toEqual({
      capture: { done: false, detail: 'no finished capture of f with its dumps yet' },
      mapping: { done: false, detail: 'no finished capture of f with jaxpr, stablehlo, hlo-opt yet' },
    });
    expect(readLabResults(doc())).toEqual(body.results);
  });

  it('creates a room opened from a lab with POST /api/rooms, and refuses an unknown or malformed lab before making any room', async () => {
    const before = t.deps.store.rooms.count();
    const res = await t.call('POST', '/api/rooms', { json: { title: 'Spill lab', lab: 'lab-2.2' } });
    expect(res.status).toBe(201);
    const made = (await res.json()) as { id: string; title: string; tokens: Record<string, string>; lab: LabView; results: LabResults };
    expect(made.title).toBe('Spill lab');
    expect(made.lab.code).toBe('LAB·2.2');
    expect(readLabView(t.deps.rooms.get(made.id).doc)?.id).toBe('lab-2.2');
    expect(made.results.room['capture']?.done).toBe(false);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const unknown = await t.call('POST', '/api/rooms', { json: { title: 'x', lab: 'lab-0' } });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: { code: 'not_found', message: 'no lab lab-0' } });
    expect((await t.call('POST', '/api/rooms', { json: { title: 'x', lab: { id: 'lab-2.1' } } })).status).toBe(400);
    expect((await t.call('POST', '/api/rooms', { body: '{"title": "x", "lab":', headers: { 'content-type': 'application/json' } })).status).toBe(400);
    expect((await t.call('POST', '/api/rooms', { json: { lab: 'lab-2.1' } })).status).toBe(400);
    expect(t.deps.store.rooms.count()).toBe(before + 1);
    // Without a lab, a room is created as before, with no lab in it.
    const plain = await t.room('plain');
    expect(readLabView(t.deps.rooms.get(plain.id).doc)).toBeNull();
  });

  it('checks LAB·2.1 from a finished capture of the MLP once its layers are stored and analysed', async () => {
    expect((await open('lab-2.1')).status).toBe(201);
    await finishCapture('lab-2.1', 'mlp', ['jaxpr', 'stablehlo', 'hlo-opt']);
    // Nobody asks: the change to the room's captures schedules the evaluation.
    await resultsWhere(doc(), (r) => r?.room['mapping']?.done === true);
    const r = await check();
    expect(r.room['capture']?.done).toBe(true);
    expect(r.room['mapping']?.done).toBe(true);
    expect(readLabResults(doc())?.room['mapping']?.done).toBe(true);
  });

  it('checks each member\'s spill on their own', async () => {
    expect((await open('lab-2.2')).status).toBe(201);
    await finishCapture('lab-2.2', 'attention', ['jaxpr', 'stablehlo', 'hlo-opt']);
    spillNote('ada', 'the scores in bf16: 128 MiB');
    spillNote('bob', 'about 40 MB');
    // The annotations changed the room: an evaluation is already under way, and this request shares or follows it.
    const r = await check(room.tokens.annotator);
    expect(r.room['capture']?.done).toBe(true);
    expect(r.members['ada']).toEqual({ name: 'ADA', steps: { spill: { done: true, detail: 'your estimate is within 0.0% of the 134,217,728 bytes the dump gives' } } });
    expect(r.members['bob']?.steps['spill']?.done).toBe(false);
  });

  it('shares one evaluation among requests that arrive together', async () => {
    expect((await open('lab-2.1')).status).toBe(201);
    const all = await Promise.all([check(), check(room.tokens.annotator), check(room.tokens.owner), check()]);
    expect(new Set(all.map((r) => r.evaluatedAt)).size).toBe(1);
  });

  it('refuses an unknown lab, a reader or annotator opening one, a bad body and a room without a lab, changing nothing', async () => {
    const unknown = await open('lab-9.9');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: { code: 'not_found', message: 'no lab lab-9.9' } });
    expect((await open('lab-2.1', room.tokens.viewer)).status).toBe(403);
    expect((await open('lab-2.1', room.tokens.annotator)).status).toBe(403);
    expect((await t.call('POST', `/api/rooms/${room.id}/lab`, { json: { lab: 'lab-2.1' } })).status).toBe(401);
    const other = await t.room('other');
    expect((await open('lab-2.1', other.tokens.owner)).status).toBe(401);
    const bad = await t.call('POST', `/api/rooms/${room.id}/lab`, { token: room.tokens.owner, json: { lab: 'lab-2.1', programs: { evil: 'import os' } } });
    expect(bad.status).toBe(400);
    expect((await t.call('POST', `/api/rooms/${room.id}/lab`, { token: room.tokens.owner, body: '{"lab":', headers: { 'content-type': 'application/json' } })).status).toBe(400);
    expect(readLabView(doc())).toBeNull();
    expect(doc().getMap(RoomKey.programs).size).toBe(0);
    const none = await t.call('POST', `/api/rooms/${room.id}/lab/check`, { token: room.tokens.viewer });
    expect(none.status).toBe(404);
    expect((await t.call('POST', `/api/rooms/${room.id}/lab/check`)).status).toBe(401);
  });
});

describe('after a restart', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'seam-lab-restart-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  /** The server's dependencies and app over `dataDir`, as the process builds them when it starts. */
  const boot = () => {
    const deps = buildDeps(resolveConfig({ dataDir, publicUrl: 'https://seam.test' }), pino({ level: 'silent' }));
    return { deps, app: createApp(deps) };
  };
  /** Stops it as the process does on SIGTERM: sockets closed, queues committed, the store closed. */
  const stop = async (deps: AppDeps) => {
    deps.rooms.closeAll(CloseCode.goingAway);
    await deps.analyzer.close();
    deps.store.close();
  };

  it('evaluates a lab room once a member opens it, and follows its changes again, without anyone opening the Lab panel', async () => {
    // The first run: a room opened from LAB·2.2, nothing done yet.
    const first = boot();
    const res = await first.app.request('/api/rooms', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Spill lab', lab: 'lab-2.2' }) });
    expect(res.status).toBe(201);
    const made = (await res.json()) as { id: string; tokens: Record<string, string>; results: LabResults };
    expect(made.results.room['capture']?.done).toBe(false);
    await stop(first.deps);

    const next = boot();
    try {
      const at = { deps: next.deps, roomId: made.id };
      // While nobody has the room open, the runner's capture finishes: its write loads the room.
      await finishCapture('lab-2.2', 'attention', ['jaxpr', 'stablehlo', 'hlo-opt'], 'cap_after', at);
      const loaded = next.deps.rooms.get(made.id).doc;
      expect(readLabResults(loaded)?.room['capture']?.done).toBe(false);
      // A student opens the room (the page reads the room first): the lab is evaluated from there.
      const opened = await next.app.request(`/api/rooms/${made.id}`, { headers: { authorization: `Bearer ${made.tokens['viewer']}` } });
      expect(opened.status).toBe(200);
      const evaluated = await resultsWhere(loaded, (r) => r?.room['capture']?.done === true);
      expect(evaluated?.room['capture']?.detail).toMatch(/naive_attention/);
      // Later changes are followed again: a member's spill is checked with nobody asking.
      spillNote('ada', 'the scores in bf16: 128 MiB', at);
      const marked = await resultsWhere(loaded, (r) => r?.members['ada'] !== undefined);
      expect(marked?.members['ada']?.steps['spill']).toEqual({ done: true, detail: 'your estimate is within 0.0% of the 134,217,728 bytes the dump gives' });
    } finally {
      await stop(next.deps);
    }
  });
});

describe('the room document\'s lab key', () => {
  it('is written by the server only: an owner\'s or annotator\'s update that marks a step done is refused', async () => {
    expect((await open('lab-2.1')).status).toBe(201);
    const server = doc();
    for (const role of ['owner', 'annotator'] as const) {
      const client = new Y.Doc();
      Y.applyUpdate(client, Y.encodeStateAsUpdate(server));
      const before = Y.encodeStateVector(client);
      client.getMap(RoomKey.lab).set('results', { labId: 'lab-2.1', evaluatedAt: 0, room: { capture: { done: true, detail: 'said so' } }, members: {} });
      expect(checkUpdate(server, Y.encodeStateAsUpdate(client, before), role).ok).toBe(false);
    }
    expect(readLabResults(server)?.room['capture']?.done).toBe(false);
  });
});

describe('loading lab files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'seam-labs-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const good = readFileSync(new URL('../../../../labs/lab-2.1.json', import.meta.url), 'utf8');
  const loadError = (): LabFormatError => {
    try {
      loadLabs(dir);
    } catch (e) {
      if (e instanceof LabFormatError) return e;
      throw e;
    }
    throw new Error('loadLabs accepted the folder');
  };

  it('reads the shipped folder, and a missing folder as no labs', () => {
    expect(loadLabs().list().map((l) => l.id)).toEqual(['lab-2.1', 'lab-2.2', 'lab-2.3']);
    expect(loadLabs(join(dir, 'absent')).list()).toEqual([]);
  });

  it('refuses a malformed file, a second file with the same id, and an oversized file, naming the file', () => {
    writeFileSync(join(dir, 'a.json'), good);
    writeFileSync(join(dir, 'b.json'), '{"id": "x", "steps": [}');
    expect(loadError().message).toMatch(/^b\.json: not JSON/);
    writeFileSync(join(dir, 'b.json'), JSON.stringify({ ...JSON.parse(good) as object, steps: [{ id: 's', title: 't', question: 'q', check: { kind: 'teacher-says-so', capture: 'mlp' } }] }));
    expect(loadError().message).toMatch(/^b\.json: steps\.0\.check\.kind/);
    writeFileSync(join(dir, 'b.json'), good);
    expect(loadError().message).toBe('b.json: id lab-2.1 is already the id of a.json');
    writeFileSync(join(dir, 'b.json'), ' '.repeat(1024 * 1024 + 1));
    expect(loadError().message).toMatch(/^b\.json: is 1048577 bytes/);
  });
});
