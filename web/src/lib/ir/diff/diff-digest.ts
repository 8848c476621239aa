import { diffToMarkdown, type DiffSummary, type ModuleDiff } from '@seam/shared/ir';
import { diffChanges, diffLines, MAX_CHANGES, type DiffChange, type DiffLines } from './diff-lines';

/**
 * What the page keeps of a diff: the summary, the line maps, the first `MAX_CHANGES` changes and the
 * Markdown. Made in the worker: the whole `ModuleDiff` of two 25 MB dumps (some 120,000 pairs) took
 * the page about a second to receive, where this takes a few milliseconds.
 */
export interface DiffDigest {
  readonly summary: DiffSummary;
  readonly lines: DiffLines;
  readonly changes: readonly DiffChange[];
  /** Changes in all (the list shows the first `MAX_CHANGES`). */
  readonly changeCount: number;
  /** `diffToMarkdown` of the whole diff, for Copy Markdown. */
  readonly markdown: string;
}

/** The digest of a diff of the documents named `names` (the Markdown's title). */
export function digestDiff(d: ModuleDiff, names: { readonly a: string; readonly b: string }): DiffDigest {
  const lines = diffLines(d);
  const changes = diffChanges(d, lines);
  return { summary: d.summary, lines, changes: changes.slice(0, MAX_CHANGES), changeCount: changes.length, markdown: diffToMarkdown(d, names) };
}

/** The digest's buffers, handed to the page without a copy. */
export function digestBuffers(g: DiffDigest): ArrayBuffer[] {
  return [g.lines.aToB.buffer, g.lines.bToA.buffer, g.lines.removed.buffer, g.lines.added.buffer] as ArrayBuffer[];
}
