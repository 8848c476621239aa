import { analyze, lacksDebugInfo, linkLayers, writeAnalysisViews, type Analysis, type AnalysisViews } from '@seam/shared/ir';
import { fetchViews, fullAnalysis, viewOf, type HeldAnalysis } from './stored-analysis';
import type { WorkerReply, WorkerRequest } from './worker-protocol';

/** Analyses by document id: only this thread holds them (the views part alone until linked). */
const held = new Map<string, HeldAnalysis>();
/** Whole analyses by document id, each made once, when the document is first linked. */
const wholes = new Map<string, Promise<Analysis>>();

function hold(docId: string, h: HeldAnalysis): void {
  held.set(docId, h);
  wholes.delete(docId);
}

function answer(reply: WorkerReply, transfer: Transferable[] = []): void {
  self.postMessage(reply, { transfer });
}

/** Answers with the compact view of a views part, its value offsets transferred. */
function sendView(id: number, views: AnalysisViews): void {
  const view = viewOf(views);
  answer({ id, ok: true, view }, [view.index.values.nums.buffer]);
}

/** The whole analysis of `docId` (its keys part fetched on the first call). */
function whole(docId: string): Promise<Analysis> {
  const h = held.get(docId);
  if (!h) return Promise.reject(new Error('the three layers are not all analyzed'));
  let p = wholes.get(docId);
  if (!p) {
    p = fullAnalysis(h);
    wholes.set(docId, p);
    p.catch(() => wholes.delete(docId));
  }
  return p;
}

async function handle(req: WorkerRequest): Promise<void> {
  if (req.type === 'analyze') {
    const full = analyze(req.text, req.kind);
    hold(req.docId, { full });
    return sendView(req.id, writeAnalysisViews(full));
  }
  if (req.type === 'load') {
    const from = { url: req.url, token: req.token };
    const views = await fetchViews(from);
    if (!views) return answer({ id: req.id, ok: true, missing: true });
    hold(req.docId, { views, from });
    return sendView(req.id, views);
  }
  if (req.type === 'prefetch') {
    await whole(req.docId);
    return answer({ id: req.id, ok: true });
  }
  const [j, s, h] = await Promise.all([whole(req.jaxpr), whole(req.stablehlo), whole(req.hlo)]);
  const jaxprSpans = j.index.keys.map((k) => [k.line, k.to] as const);
  answer({ id: req.id, ok: true, link: { rows: linkLayers(j, s, h), jaxprSpans, stablehloWithoutLocs: lacksDebugInfo(s) } });
}

// Fetching, parsing and linking run here, off the main thread; a failure answers that request only.
self.onmessage = (e: MessageEvent<WorkerRequest>) => {
  handle(e.data).catch((err: unknown) => answer({ id: e.data.id, ok: false, message: err instanceof Error ? err.message : String(err) }));
};
