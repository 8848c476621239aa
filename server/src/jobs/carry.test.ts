import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readAnnotations, type Annotation } from '@seam/shared/model';
import { testApp, type TestApp, type TestRoom } from '../testing';
import { carryAnnotations } from './carry';

/** The MLP captured, then captured again with `gelu` for `relu`. */
const dump = (name: 'mlp' | 'mlp_gelu', file: string): string => readFileSync(new URL(`../../../test/fixtures/carry/${name}/${file}`, import.meta.url), 'utf8');

describe('carryAnnotations on a real store and room', () => {
  let t: TestApp;
  let room: TestRoom;
  beforeEach(async () => {
    t = testApp();
    room = await t.room('carry');
  });
  afterEach(() => t.close());

  async function annotate(docId: string, text: string, needle: string, body: string): Promise<Annotation> {
    const from = text.indexOf(needle);
    const res = await t.call('POST', `/api/rooms/${room.id}/annotations`, { token: room.tokens.owner, json: { docId, from, to: from + needle.length, kind: 'note', body } });
    expect(res.status).toBe(201);
    return (await res.json()) as Annotation;
  }

  it('copies each annotation onto the same layer of the re-run in one transaction, detaches what has no match, and leaves the originals as they were', async () => {
    const oldJaxpr = dump('mlp', 'jaxpr.txt');
    const oldOpt = dump('mlp', 'hlo-opt.txt');
    const prev = [await t.addDocument(room, 'mlp: jaxpr', oldJaxpr), await t.addDocument(room, 'mlp: optimized HLO', oldOpt), await t.addDocument(room, 'mlp: StableHLO', dump('mlp', 'stablehlo.mlir'))];
    const next = [await t.addDocument(room, 'mlp: jaxpr', dump('mlp_gelu', 'jaxpr.txt')), await t.addDocument(room, 'mlp: optimized HLO', dump('mlp_gelu', 'hlo-opt.txt'))];
    const dot = await annotate(prev[0]!, oldJaxpr, 'dot_general', 'the matmul');
    const max = await annotate(prev[0]!, oldJaxpr, 'max h 0.0:f32[]', 'the relu');
    const fused = await annotate(prev[1]!, oldOpt, '%dot_general.0', 'fused dot');
    // On a layer the re-run did not capture: not carried, counted.
    await annotate(prev[2]!, dump('mlp', 'stablehlo.mlir'), 'stablehlo.maximum', 'no layer for me');
    const doc = t.deps.rooms.get(room.id).doc;
    const before = readAnnotations(doc);
    let transactions = 0;
    doc.on('afterTransaction', () => transactions++);

    // Layers of 5,000 characters and more (both texts) matched in a worker thread: the jaxpr (3,849) inline, the optimized HLO (7,369) in a worker.
    const counts = await carryAnnotations({ ...t.deps, carryWorkerChars: 5_000 }, room.id, { id: 'cap_prev', documents: prev }, { id: 'cap_next', documents: next });
    expect(counts).toEqual({ annotations: 3, detached: 1, notCarried: 1 });
    expect(transactions).toBe(1);
    const after = readAnnotations(doc);
    for (const a of before) expect(after.find((x) => x.id === a.id)).toEqual(a);
    const copyOf = (a: Annotation) => after.find((x) => x.carried?.annotationId === a.id);
    expect(copyOf(dot)).toMatchObject({ docId: next[0], body: 'the matmul', quote: { exact: 'dot_general' }, carried: { docId: prev[0], captureId: 'cap_prev', detached: false } });
    expect(copyOf(max)).toMatchObject({ docId: next[0], from: 0, to: 0, quote: { exact: 'max h 0.0:f32[]' }, carried: { detached: true } });
    const nextOpt = dump('mlp_gelu', 'hlo-opt.txt');
    const f = copyOf(fused);
    expect(f && nextOpt.slice(f.from, f.to)).toBe('%dot_general.0');
  });
});
