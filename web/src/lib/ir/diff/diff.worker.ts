import { diffModules } from '@seam/shared/ir';
import { digestBuffers, digestDiff } from './diff-digest';
import type { DiffReply, DiffRequest } from './diff-protocol';

// A diff of two 25 MB dumps takes seconds: it runs here, so the page keeps answering meanwhile, and
// only its digest goes back (the line maps transferred, not copied).
self.onmessage = (e: MessageEvent<DiffRequest>) => {
  const r = e.data;
  let reply: DiffReply;
  let transfer: ArrayBuffer[] = [];
  try {
    const diff = diffModules(r.a, r.b, { kindA: r.kindA, kindB: r.kindB, ...(r.opTimes ? { opTimes: r.opTimes } : {}) });
    const digest = digestDiff(diff, r.names);
    reply = { id: r.id, ok: true, digest };
    transfer = digestBuffers(digest);
  } catch (err) {
    reply = { id: r.id, ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  self.postMessage(reply, { transfer });
};
