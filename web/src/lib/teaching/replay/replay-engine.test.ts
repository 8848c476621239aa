import * as Y from 'yjs';
import { toBase64 } from 'lib0/buffer';
import { describe, expect, it } from 'vitest';
import { addAnnotation, addReply, deleteAnnotation, readAnnotations, type Annotation } from '@seam/shared/model';
import type { HistoryLine } from '@seam/shared/teaching';
import { CHECKPOINT_EVERY, ReplayEngine } from './replay-engine';
import type { FetchedHistory } from './replay-api';

const note = (id: string, createdAt: number): Annotation => ({
  id, docId: 'd', from: 0, to: 1, quote: { prefix: '', exact: 'x', suffix: '' }, kind: 'question', body: `q ${id}`,
  author: { id: 'u', name: 'U', color: '#000000' }, createdAt, resolved: false, replies: [],
});

/** A session: a room with one annotation made before its history, then `n` annotations a second apart (every third gets a reply, some are deleted), and the presenter moving. */
function session(n: number): { history: FetchedHistory; docs: Y.Doc[] } {
  const live = new Y.Doc();
  addAnnotation(live, note('before', 0));
  const base = Y.encodeStateAsUpdate(live);
  const entries: Extract<HistoryLine, { type: 'update' | 'presenter' }>[] = [];
  const docs: Y.Doc[] = [];
  let id = 1;
  live.on('update', (u: Uint8Array) => {
    entries.push({ type: 'update', id: id++, at: 1_000_000 + docs.length * 1000, data: toBase64(u) });
  });
  for (let i = 0; i < n; i++) {
    if (i % 17 === 16) deleteAnnotation(live, `a${i - 15}`);
    else if (i % 3 === 2) addReply(live, `a${i - 1}`, { id: `r${i}`, body: `answer ${i}`, author: { id: 'g', name: 'Grace', color: '#000000' }, createdAt: 1 });
    else addAnnotation(live, note(`a${i}`, 1_000_000 + i * 1000));
    if (i % 10 === 0) entries.push({ type: 'presenter', id: id++, at: 1_000_000 + i * 1000, view: { docId: `doc${i}`, topLine: i + 1, anchor: 0, head: 0, userId: 'g', name: 'Grace' } });
    const copy = new Y.Doc();
    Y.applyUpdate(copy, Y.encodeStateAsUpdate(live));
    docs.push(copy);
  }
  return { history: { start: { type: 'start', startsAt: 999_000, endsAt: 1_000_000 + (n - 1) * 1000, dropped: false, base: toBase64(base) }, entries }, docs };
}
const ids = (d: Y.Doc) => readAnnotations(d).map((a) => `${a.id}:${a.replies.length}`).sort();

describe('ReplayEngine', () => {
  it('rebuilds the document at any moment, scrubbing back and forth, from its own Y.Doc', () => {
    const n = CHECKPOINT_EVERY * 3 + 7;
    const { history, docs } = session(n);
    const e = new ReplayEngine(history);
    expect(ids(e.docAt(999_500))).toEqual(['before:0']);
    for (const i of [0, 5, n - 1, 3, CHECKPOINT_EVERY * 2 + 1, CHECKPOINT_EVERY * 2 + 2, 1, n - 2]) {
      expect(ids(e.docAt(1_000_000 + i * 1000 + 500)), `moment ${i}`).toEqual(ids(docs[i] as Y.Doc));
    }
    // The annotations alone, read without rebuilding a document, are the same at every moment.
    for (const i of [n - 1, 0, CHECKPOINT_EVERY - 1, CHECKPOINT_EVERY, 2, n - 5, CHECKPOINT_EVERY * 3]) {
      expect(e.annotationsAt(1_000_000 + i * 1000 + 500), `moment ${i}`).toEqual(readAnnotations(docs[i] as Y.Doc));
    }
    expect(e.annotationsAt(999_500).map((a) => a.id)).toEqual(['before']);
    e.destroy();
  });

  it('takes its snapshots in slices, and a seek past them takes what it needs first', () => {
    const n = CHECKPOINT_EVERY * 2 + 3;
    const { history, docs } = session(n);
    const e = new ReplayEngine(history);
    expect(e.complete).toBe(false);
    expect(e.advance(10)).toBe(false);
    expect(ids(e.docAt(1_000_000 + (n - 1) * 1000))).toEqual(ids(docs[n - 1] as Y.Doc));
    expect(e.complete).toBe(true);
    expect(ids(e.finalDoc())).toEqual(ids(docs[n - 1] as Y.Doc));
  });

  it('says where the presenter was: the last sample at or before the moment, none before the first', () => {
    const { history } = session(25);
    const e = new ReplayEngine(history);
    expect(e.presenterAt(999_999)).toBeNull();
    expect(e.presenterAt(1_000_000)?.docId).toBe('doc0');
    expect(e.presenterAt(1_015_000)?.docId).toBe('doc10');
    expect(e.presenterAt(1_024_000)).toMatchObject({ docId: 'doc20', topLine: 21 });
  });

  it('applies only what is new when moving forward, and at most a checkpoint\'s worth when jumping', () => {
    const { history } = session(CHECKPOINT_EVERY * 4);
    const e = new ReplayEngine(history);
    const first = e.docAt(1_000_000);
    expect(e.docAt(1_005_000)).toBe(first);
    const jumped = e.docAt(1_000_000 + CHECKPOINT_EVERY * 3 * 1000);
    expect(jumped).not.toBe(first);
    let applied = 0;
    jumped.on('update', () => (applied += 1));
    e.docAt(1_000_000 + (CHECKPOINT_EVERY * 3 + 10) * 1000);
    expect(applied).toBe(10);
    const back = e.docAt(1_000_000 + (CHECKPOINT_EVERY + 5) * 1000);
    expect(back).not.toBe(jumped);
  });
});
