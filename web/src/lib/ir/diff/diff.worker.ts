import { diffModules } from '@seam/shared/ir';
import type { DiffReply, DiffRequest } from './diff-protocol';

// A diff of two 25 MB dumps takes seconds: it runs here, so the page keeps answering meanwhile.
self.onmessage = (e: MessageEvent<DiffRequest>) => {
  const r = e.data;
  let reply: DiffReply;
  try {
    reply = { id: r.id, ok: true, diff: diffModules(r.a, r.b, { kindA: r.kindA, kindB: r.kindB, ...(r.opTimes ? { opTimes: r.opTimes } : {}) }) };
  } catch (err) {
    reply = { id: r.id, ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  self.postMessage(reply);
};
