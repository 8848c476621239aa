import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addAnnotation } from '@seam/shared/model';
import { readLabResults, type LabResults } from '@seam/shared/teaching';
import { addDocument, connectClient, startTestServer, waitFor, type CreatedRoom } from '../helpers';
import { fixture } from '../helpers/ir-fixture';

/**
 * A lab room across a restart of the server process (SIGTERM, then a new process on the same
 * data): its results are evaluated again, and follow its changes, once a member opens the room,
 * without anyone asking for a check or opening the Lab panel.
 */

const HLO = fixture('attention', 'hlo-opt.txt');
const dataDir = mkdtempSync(join(tmpdir(), 'seam-lab-restart-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('a lab room after a restart', () => {
  it('is evaluated when a member opens it, what changed before included, and follows its annotations from then on', async () => {
    const first = await startTestServer({ dataDir, child: true });
    let room: CreatedRoom & { results: LabResults };
    let docId: string;
    try {
      const res = await fetch(`${first.url}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Spill lab', lab: 'lab-2.2' }) });
      expect(res.status).toBe(201);
      room = (await res.json()) as CreatedRoom & { results: LabResults };
      docId = await addDocument(first, room.id, room.tokens.owner, 'attn.hlo-opt', HLO);
    } finally {
      await first.close();
    }
    expect(room.results.members).toEqual({});

    const server = await startTestServer({ dataDir, child: true });
    const student = connectClient(server, room.id, room.tokens.annotator);
    try {
      await student.synced();
      const results = () => readLabResults(student.doc);
      const at = HLO.indexOf('%wrapped_convert.2 =');
      const spill = (who: string, body: string) => addAnnotation(student.doc, {
        id: `spill-${who}`, docId, from: at, to: at + 18, quote: { prefix: '', exact: HLO.slice(at, at + 18), suffix: '' }, kind: 'spill', body,
        author: { id: who, name: who, color: '#e03131' }, createdAt: Date.now(), resolved: false, replies: [], instruction: 'wrapped_convert.2',
      });
      // Over the sync socket alone, before anyone opened the room: Bo marks the spill.
      spill('bo', 'the scores: 128 MiB');
      // A member opens the room (the page reads it first): Bo's step is evaluated.
      const opened = await fetch(`${server.url}/api/rooms/${room.id}`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } });
      expect(opened.status).toBe(200);
      await waitFor(() => results()?.members['bo'] !== undefined, 'the lab evaluated once the room was opened');
      // No capture has run yet, so the step is open, and says why.
      expect(results()?.members['bo']?.steps['spill']?.done).toBe(false);
      // From then on its changes are followed: Cy's annotation is evaluated with nobody asking.
      spill('cy', 'about 40 MB');
      await waitFor(() => results()?.members['cy'] !== undefined, 'the lab evaluated after a change');
      expect(Object.keys(results()?.members ?? {}).sort()).toEqual(['bo', 'cy']);
    } finally {
      student.destroy();
      await server.close();
    }
  });
});
