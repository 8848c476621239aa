import { formatShortBytes } from '../editor/ir/short-bytes';

/** Where a document's analysis stands, as the IR views' `analyses` entries say it. */
export type AnalysisProgress = { readonly state: 'loading' } | { readonly state: 'ready' } | { readonly state: 'failed'; readonly message: string };

/** The little of a document's meta a progress line names. */
export interface ProgressDoc {
  readonly title: string;
  readonly bytes: number;
}

/**
 * What a view waiting on `doc`'s analysis says meanwhile — `Analysing attention.hlo-opt… 14 MiB` —
 * or why it will show nothing, when the analysis failed; null once it is in (or when none was asked
 * for: the view says what it says with nothing found).
 */
export function analysisProgress(entry: AnalysisProgress | undefined, doc: ProgressDoc | undefined): string | null {
  const title = doc?.title || 'the document';
  if (entry?.state === 'loading') return `Analysing ${title}…${doc ? ` ${formatShortBytes(doc.bytes)}` : ''}`;
  if (entry?.state === 'failed') return `Could not analyse ${title}: ${entry.message}`;
  return null;
}

/**
 * The progress line of a view that waits on several analyses (Mapping waits on a group's StableHLO
 * and optimized HLO): the first failure, else the first still loading; null when all are in.
 */
export function analysesProgress(ids: readonly string[], entries: Readonly<Record<string, AnalysisProgress | undefined>>, docOf: (id: string) => ProgressDoc | undefined): string | null {
  const failed = ids.find((id) => entries[id]?.state === 'failed');
  const loading = ids.find((id) => entries[id]?.state === 'loading');
  const id = failed ?? loading;
  return id === undefined ? null : analysisProgress(entries[id], docOf(id));
}
