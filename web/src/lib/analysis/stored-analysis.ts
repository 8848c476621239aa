import { AnalysisPart, decodeValueColumns, isAnalysisKeys, isAnalysisViews, readAnalysis, type Analysis, type AnalysisViews } from '@seam/shared/ir';
import type { ViewAnalysis } from './worker-protocol';

/** Where a document's stored analysis is: its `…/analysis` URL and the token that may read it. */
export interface AnalysisUrl {
  readonly url: string;
  readonly token: string;
}

/**
 * One document's analysis as the worker holds it: the views part alone until the document is
 * linked, then the whole analysis (the keys part fetched then, once).
 */
export type HeldAnalysis = { readonly views: AnalysisViews; readonly from: AnalysisUrl } | { readonly full: Analysis };

/** A views part in the form posted to the main thread: values in joined columns, offsets in a `Float64Array` to transfer. */
export function viewOf(views: AnalysisViews): ViewAnalysis {
  return { index: { ...views.index, values: decodeValueColumns(views.index.values) }, diagnostics: views.diagnostics };
}

async function getJson(from: AnalysisUrl, part: AnalysisPart): Promise<unknown> {
  const res = await fetch(`${from.url}?part=${part}`, { headers: { Authorization: `Bearer ${from.token}` } });
  if (res.status === 404) return null;
  if (!res.ok) throw new Error(`analysis ${part} request answered ${res.status}`);
  return res.json();
}

/** The views part of a stored analysis; null when the server has no analysis for the document. */
export async function fetchViews(from: AnalysisUrl): Promise<AnalysisViews | null> {
  const body = await getJson(from, AnalysisPart.views);
  if (body === null) return null;
  if (!isAnalysisViews(body)) throw new Error('the server answered an analysis views part this app cannot read');
  return body;
}

/** The whole analysis of a held document, fetching its keys part if it has not been linked yet. */
export async function fullAnalysis(h: HeldAnalysis): Promise<Analysis> {
  if ('full' in h) return h.full;
  const keys = await getJson(h.from, AnalysisPart.keys);
  if (!isAnalysisKeys(keys)) throw new Error('the server answered no cross-layer keys for this analysis');
  return readAnalysis(h.views, keys);
}
