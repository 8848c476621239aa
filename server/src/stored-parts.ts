import type { AnalysisPart } from '@seam/shared/ir';
import type { Analyzer } from './analyzer';
import type { DocumentBlobs } from './store/shared-store';

/**
 * A blob's analysis parts as served: the ones ingest stored, or, for blobs stored before the parts
 * existed (or in an older `ANALYSIS_PARTS_VERSION`), split once from the stored whole analysis in
 * the analyzer's worker thread and stored, so that only the first request pays for it. Concurrent
 * first requests for one blob share one split.
 */
export class StoredParts {
  private readonly splitting = new Map<string, Promise<void>>();

  constructor(
    private readonly documents: DocumentBlobs,
    private readonly analyzer: Analyzer,
  ) {}

  /** The gzipped JSON of `part` of blob `sha256`; undefined when the blob has no analysis. */
  async get(sha256: string, part: AnalysisPart): Promise<Buffer | undefined> {
    const stored = await this.documents.analysisPartGzip(sha256, part);
    if (stored) return stored;
    const whole = await this.documents.analysisGzip(sha256);
    if (!whole) return undefined;
    let split = this.splitting.get(sha256);
    if (!split) {
      split = this.analyzer
        .partsGzip(whole)
        .then(async (parts) => this.documents.putAnalysisParts(sha256, parts))
        .finally(() => this.splitting.delete(sha256));
      this.splitting.set(sha256, split);
    }
    await split;
    return this.documents.analysisPartGzip(sha256, part);
  }
}
