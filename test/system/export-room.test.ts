import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Analysis } from '@seam/shared/ir';
import { addAnnotation, formatArgSpec, quoteOf, type CaptureEntry, type DocumentMeta, type RoomExport } from '@seam/shared/model';
import { connectClient, waitFor, type TestClient } from '../helpers';
import { captureGroup, documentAnalysis, documentText, MLP, MLP_ARGS, requestCapture, startCaptureRoom, waitJob, type CaptureRoom } from '../helpers/capture-kit';

/**
 * The export holds what the room knows: a real capture of the MLP on the CPU runner (real JAX),
 * notes and a spill marked from a selection written by an annotator over the sync socket, then
 * `…/export.json` and `…/export.md` as a viewer gets them.
 */

const HOSTILE_NOTE = 'Week 3 <img src=x onerror=alert(1)>\n# not a heading\n[link](javascript:alert(1))';

describe('the export of a room with a capture, notes and a spill', () => {
  let room: CaptureRoom | undefined;
  let annotator: TestClient;
  let job: CaptureEntry;
  let group: DocumentMeta[];
  let e: RoomExport;
  let md: string;

  const exported = async (format: 'json' | 'md') => {
    const res = await fetch(`${room!.s.url}/api/rooms/${room!.s.room.id}/export.${format}`, { headers: { authorization: `Bearer ${room!.s.room.tokens.viewer}` } });
    expect(res.status).toBe(200);
    return res.text();
  };

  beforeAll(async () => {
    room = await startCaptureRoom('cpu-export');
    const { s, viewer } = room;
    const { status, body } = await requestCapture(s, { program: MLP, entry: 'mlp', args: MLP_ARGS });
    expect(status).toBe(202);
    job = await waitJob(s, body.job.id, ['done', 'failed', 'cancelled']);
    expect(job.error).toBeUndefined();
    group = await captureGroup(viewer, job);

    annotator = connectClient(s, s.room.id, s.room.tokens.annotator);
    await annotator.synced();
    const opt = group.find((d) => d.kind === 'hlo-opt')!;
    const optText = await documentText(s, opt.id);
    const { index } = await documentAnalysis<Analysis>(s, opt.id);
    const top = index.spills[0]!;
    // A spill marked from a selection of the producer's line: no instruction, size or traffic written.
    addAnnotation(annotator.doc, {
      id: 'spill-1', docId: opt.id, from: top.from, to: top.to, quote: quoteOf(optText, top.from, top.to), kind: 'spill', body: 'written then read back',
      author: { id: 'u1', name: 'Ada', color: '#123456' }, createdAt: 1, resolved: false, replies: [],
    });
    annotator.doc.getText('notes').insert(0, HOSTILE_NOTE);
    await waitFor(async () => ((JSON.parse(await exported('json')) as RoomExport).notes ?? '') === HOSTILE_NOTE && (JSON.parse(await exported('json')) as RoomExport).annotations.length === 1, 'the note and the spill to reach the server');
    e = JSON.parse(await exported('json')) as RoomExport;
    md = await exported('md');
  }, 240_000);

  afterAll(async () => {
    annotator?.destroy();
    await room?.close();
  });

  it('carries the capture with its provenance and the FLOPs of its cost analysis', async () => {
    const c = e.captures?.find((x) => x.captureId === job.id);
    expect(c).toMatchObject({ label: 'capture #1', entry: 'mlp', status: 'done', provenance: { runner: 'cpu-export', platform: 'cpu', jax: '0.10.2', jaxlib: '0.10.2' } });
    const cost = JSON.parse(await documentText(room!.s, group.find((d) => d.title === 'mlp: cost analysis')!.id)) as Record<string, number>;
    expect(c?.figures.flops).toBe(cost.flops);
    expect(c?.figures.flops).toBeGreaterThan(0);
    expect(c?.documents).toEqual(expect.arrayContaining(group.map((d) => d.title)));
    expect(md).toContain(`### capture #1 · \`mlp(${MLP_ARGS.map(formatArgSpec).join(', ')})\` · done`);
    expect(md).toMatch(/\n- versions: JAX 0\.10\.2 · jaxlib 0\.10\.2 · Python 3\.\d+\.\d+\n/);
    expect(md).toContain(`- cost analysis: ${cost.flops!.toLocaleString('en-US')} FLOPs`);
  });

  it('carries the mapping table of the capture group, pairing only that group\'s layers', () => {
    expect(e.mappings).toHaveLength(1);
    const m = e.mappings![0]!;
    const id = (kind: string) => group.find((d) => d.kind === kind)!.id;
    expect(m).toMatchObject({ group: `capture:${job.id}`, label: 'capture #1', stablehloWithoutLocs: false });
    expect(m.documents).toMatchObject({ jaxpr: { id: id('jaxpr') }, stablehlo: { id: id('stablehlo') }, hlo: { id: id('hlo-opt') } });
    const dot = m.rows.find((r) => r.primitive === 'dot_general');
    expect(dot?.stablehlo.map((o) => o.op)).toContain('stablehlo.dot_general');
    expect(dot?.hlo.length).toBeGreaterThan(0);
    expect(md).toContain('## Mapping tables (1)');
    expect(md).toMatch(/\n\| \d+ \| \w+ \| dot\\_general \| /);
  });

  it('gives the spill marked from a selection its size, traffic and readers from the stored analysis', async () => {
    const opt = group.find((d) => d.kind === 'hlo-opt')!;
    const top = (await documentAnalysis<Analysis>(room!.s, opt.id)).index.spills[0]!;
    expect(e.annotations[0]).toMatchObject({ id: 'spill-1', instruction: top.producer, bytes: top.bytes, traffic: top.traffic, readers: top.consumers, figuresFrom: 'analysis' });
    expect(md).toContain(`· figures from the analysis · open`);
  });

  it('quotes the notes as inert text', () => {
    expect(md).toContain('## Notes\n\n> Week 3 &lt;img src=x onerror=alert(1)&gt;\n> \\# not a heading\n> \\[link\\](javascript:alert(1))\n');
    expect(md).not.toMatch(/<img|^# not/m);
  });
});
