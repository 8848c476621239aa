import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEntry } from '@seam/shared/model';
import { connectClient, waitFor, type TestClient } from '../helpers';
import { captureGroup, documentText, MLP, MLP_ARGS, requestCapture, startCaptureRoom, waitJob, type CaptureRoom, type CaptureServer } from '../helpers/capture-kit';

describe('capturing through the REST API with a real runner and real JAX', () => {
  let room: CaptureRoom | undefined;
  let s: CaptureServer;
  let viewer: TestClient;

  beforeAll(async () => {
    room = await startCaptureRoom('cpu-1');
    ({ s, viewer } = room);
  });
  afterAll(async () => {
    await room?.close();
  });

  it('brings jaxpr, StableHLO, HLO before and after optimization and the analyses of the MLP into the room', async () => {
    const { status, body } = await requestCapture(s, { program: MLP, entry: 'mlp', args: MLP_ARGS });
    expect(status).toBe(202);
    expect(body.job.status).toMatch(/queued|running/);
    const job = await waitJob(s, body.job.id, ['done', 'failed', 'cancelled']);
    expect(job.error).toBeUndefined();
    expect(job.status).toBe('done');
    expect(job.provenance).toMatchObject({ runner: 'cpu-1', platform: 'cpu', jax: '0.10.2' });
    expect(Number((job.analyses?.cost as Record<string, number>).flops)).toBeGreaterThan(0);

    // The viewer's room document holds the whole capture group and the job's final status.
    const group = await captureGroup(viewer, job);
    expect(group.map((d) => d.kind).sort()).toEqual(['hlo', 'hlo-opt', 'jaxpr', 'stablehlo', 'text', 'text']);
    expect(group.every((d) => d.captureId === job.id && d.addedBy === 'runner:cpu-1')).toBe(true);
    await waitFor(() => (viewer.doc.getMap<CaptureEntry>('captures').get(job.id)?.status ?? '') === 'done', 'done in the room');

    const opt = group.find((d) => d.kind === 'hlo-opt')!;
    const optText = await documentText(s, opt.id);
    expect(optText).toMatch(/^HloModule jit_mlp/m);
    expect(optText).toMatch(/\bfusion\(/);
    const stablehlo = await documentText(s, group.find((d) => d.kind === 'stablehlo')!.id);
    expect(stablehlo).toMatch(/loc\(/);
  });

  it('refuses a capture request that is not a capture request, with the reason', async () => {
    const { status, body } = await requestCapture(s, { program: MLP, entry: 'not an identifier', args: [] });
    expect(status).toBe(400);
    expect(body.error?.message).toMatch(/entry/);
  });

  it('gives a viewer 403 and an annotator 403 until the owner allows annotator captures', async () => {
    const asViewer = await requestCapture(s, { program: MLP, entry: 'mlp', args: MLP_ARGS }, s.room.tokens.viewer);
    expect(asViewer.status).toBe(403);
    const asAnnotator = await requestCapture(s, { program: MLP, entry: 'mlp', args: MLP_ARGS, capture: ['jaxpr'] }, s.room.tokens.annotator);
    expect(asAnnotator.status).toBe(403);

    const owner = connectClient(s, s.room.id, s.room.tokens.owner);
    await owner.synced();
    owner.doc.getMap('settings').set('allowAnnotatorCapture', true);
    await waitFor(() => viewer.doc.getMap('settings').get('allowAnnotatorCapture') === true, 'the setting to reach the server');
    owner.destroy();
    const allowed = await requestCapture(s, { program: MLP, entry: 'mlp', args: MLP_ARGS, capture: ['jaxpr'] }, s.room.tokens.annotator);
    expect(allowed.status).toBe(202);
    expect((await waitJob(s, allowed.body.job.id, ['done', 'failed'])).status).toBe('done');
  });

  it('keeps clients from forging job status in the room', async () => {
    const owner = connectClient(s, s.room.id, s.room.tokens.owner);
    await owner.synced();
    owner.doc.getMap('captures').set('forged', { id: 'forged', status: 'done' });
    // A second, honest client's edit made after the forgery: once it arrives, the forgery had its chance.
    const honest = connectClient(s, s.room.id, s.room.tokens.owner);
    await honest.synced();
    const marker = `m${Date.now()}`;
    honest.doc.getText('notes').insert(0, marker);
    await waitFor(() => viewer.doc.getText('notes').toString().includes(marker), 'a later legitimate edit to arrive');
    expect(viewer.doc.getMap('captures').has('forged')).toBe(false);
    honest.destroy();
    owner.destroy();
  });

  // Last: the server closes a connection whose body it refused unread, so nothing may follow on it.
  it('refuses a request body over 2 MiB with 413', async () => {
    const huge = await requestCapture(s, { program: '#'.repeat(3 * 1024 * 1024), entry: 'f', args: [] });
    expect(huge.status).toBe(413);
    expect(huge.body.error?.code).toBe('too_large');
  });
});
