import { diffModules, diffModulesAside, graphOfReply, type DiffGraphData, type GraphReader, type GraphReply, type GraphRequest, type ModuleDiff } from '@seam/shared/ir';
import type { DocumentKind } from '@seam/shared/model';
import { digestBuffers, digestDiff } from './diff-digest';
import type { DiffReply, DiffRequest } from './diff-protocol';

// A diff of two 25 MB dumps takes seconds: it runs here, so the page keeps answering meanwhile, and
// only its digest goes back (the line maps transferred, not copied). B is read in a second worker
// while this one reads A (reading is most of the time); where a worker cannot start one, both are
// read here.

/** Reads of the side worker not yet answered, oldest first: it answers in the order asked. */
const waiting: { resolve: (g: DiffGraphData) => void; reject: (e: Error) => void }[] = [];
let side: Worker | undefined;

/** The side worker, started once and kept for the next diffs; undefined where workers cannot start workers. */
function sideWorker(): Worker | undefined {
  if (side || typeof Worker === 'undefined') return side;
  side = new Worker(new URL('./diff-side.worker.ts', import.meta.url), { type: 'module' });
  side.onmessage = (e: MessageEvent<GraphReply>) => {
    const w = waiting.shift();
    try {
      w?.resolve(graphOfReply(e.data));
    } catch (err) {
      w?.reject(err as Error);
    }
  };
  side.onerror = (e) => {
    // A stopped side worker answers nothing more: fail its reads, and start a fresh one next time.
    e.preventDefault();
    side?.terminate();
    side = undefined;
    for (const w of waiting.splice(0)) w.reject(new Error(`the diff's second worker stopped: ${e.message || 'unknown error'}`));
  };
  return side;
}

const readInSideWorker = (worker: Worker): GraphReader => (text: string, kind: DocumentKind) =>
  new Promise<DiffGraphData>((resolve, reject) => {
    waiting.push({ resolve, reject });
    const request: GraphRequest = { text, kind };
    worker.postMessage(request);
  });

async function diff(r: DiffRequest): Promise<ModuleDiff> {
  const options = { kindA: r.kindA, kindB: r.kindB, ...(r.opTimes ? { opTimes: r.opTimes } : {}) };
  const worker = sideWorker();
  return worker ? diffModulesAside(r.a, r.b, options, readInSideWorker(worker)) : diffModules(r.a, r.b, options);
}

async function answer(r: DiffRequest): Promise<void> {
  let reply: DiffReply;
  let transfer: ArrayBuffer[] = [];
  try {
    const digest = digestDiff(await diff(r), r.names);
    reply = { id: r.id, ok: true, digest };
    transfer = digestBuffers(digest);
  } catch (err) {
    reply = { id: r.id, ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  self.postMessage(reply, { transfer });
}

// Diffs one after another, so that each reads its side B from the side worker in turn.
let queue = Promise.resolve();
sideWorker();
self.onmessage = (e: MessageEvent<DiffRequest>) => {
  queue = queue.then(() => answer(e.data));
};
