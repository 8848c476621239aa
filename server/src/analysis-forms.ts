import { writeAnalysisKeys, writeAnalysisViews, type Analysis } from '@seam/shared/ir';

/** A stored analysis in each form it is served in, as JSON bytes (gzipped when stored). */
export interface AnalysisForms<T = Uint8Array> {
  /** The whole `analyze()` result. */
  readonly analysis: T;
  /** `writeAnalysisViews`: what the views draw, values in columns. */
  readonly views: T;
  /** `writeAnalysisKeys`: the cross-layer keys, strings stored once. */
  readonly keys: T;
}

const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v), 'utf8');

/** The JSON of each form of `a`. */
export function analysisForms(a: Analysis): AnalysisForms<Buffer> {
  return { analysis: json(a), views: json(writeAnalysisViews(a)), keys: json(writeAnalysisKeys(a)) };
}

/** The views and keys parts of an analysis stored before the parts were (its whole JSON). */
export function partForms(analysisJson: Buffer): Omit<AnalysisForms<Buffer>, 'analysis'> {
  const a = JSON.parse(analysisJson.toString('utf8')) as Analysis;
  return { views: json(writeAnalysisViews(a)), keys: json(writeAnalysisKeys(a)) };
}
