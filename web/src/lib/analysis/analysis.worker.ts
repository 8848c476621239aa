import { analyze, linkLayers, type Analysis } from '@seam/shared/ir';
import { toViewIndex } from '../editor/ir/lookup';
import type { ViewAnalysis, WorkerReply, WorkerRequest } from './worker-protocol';

/** Full analyses by document id: only this thread holds the whole object graph. */
const loaded = new Map<string, Analysis>();

function answer(reply: WorkerReply, transfer: Transferable[] = []): void {
  self.postMessage(reply, { transfer });
}

/** Keeps the full analysis here and answers with the compact view of it (its value columns transferred). */
function sendView(id: number, docId: string, a: Analysis): void {
  loaded.set(docId, a);
  const view: ViewAnalysis = { index: toViewIndex(a.index), diagnostics: a.diagnostics };
  answer({ id, ok: true, view }, [view.index.values.nums.buffer]);
}

async function handle(req: WorkerRequest): Promise<void> {
  if (req.type === 'analyze') return sendView(req.id, req.docId, analyze(req.text, req.kind));
  if (req.type === 'load') {
    const res = await fetch(req.url, { headers: { Authorization: `Bearer ${req.token}` } });
    if (res.status === 404) return answer({ id: req.id, ok: true, missing: true });
    if (!res.ok) throw new Error(`analysis request answered ${res.status}`);
    return sendView(req.id, req.docId, (await res.json()) as Analysis);
  }
  const [j, s, h] = [loaded.get(req.jaxpr), loaded.get(req.stablehlo), loaded.get(req.hlo)];
  if (!j || !s || !h) throw new Error('the three layers are not all analyzed');
  const jaxprSpans = j.index.keys.map((k) => [k.line, k.to] as const);
  answer({ id: req.id, ok: true, link: { rows: linkLayers(j, s, h), jaxprSpans } });
}

// Fetching, parsing and linking run here, off the main thread; a failure answers that request only.
self.onmessage = (e: MessageEvent<WorkerRequest>) => {
  handle(e.data).catch((err: unknown) => answer({ id: e.data.id, ok: false, message: err instanceof Error ? err.message : String(err) }));
};
