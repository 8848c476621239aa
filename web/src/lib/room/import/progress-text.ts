import { formatBytes } from '../../format';

/**
 * Long work in the document list: a body on its way to the server (`sending`, with its bytes), or
 * the server at work on what it received (`waiting`: importing or analysing, until it answers).
 */
export interface Transfer {
  /** What goes: "14 files", "dumps.zip", "mlp.hlo.txt". */
  readonly label: string;
  /** An import (a folder or an archive) or one upload. */
  readonly kind: 'import' | 'upload';
  readonly phase: 'sending' | 'waiting';
  readonly loaded: number;
  readonly total: number;
}

/** Whole percent sent, never 100 before every byte has gone; 0 when the total is unknown. */
export function percentSent(t: Pick<Transfer, 'loaded' | 'total'>): number {
  if (t.total <= 0) return 0;
  const p = Math.floor((Math.min(t.loaded, t.total) / t.total) * 100);
  return t.loaded < t.total ? Math.min(p, 99) : 100;
}

/** "Uploading 14 files · 42% · 1.2 MB of 2.9 MB", then "Importing 14 files…" (or "Adding mlp.hlo.txt…") while the server works. */
export function progressText(t: Transfer): string {
  if (t.phase === 'waiting') return t.kind === 'import' ? `Importing ${t.label}…` : `Adding ${t.label}…`;
  if (t.total <= 0) return `Uploading ${t.label} · ${formatBytes(t.loaded)}`;
  return `Uploading ${t.label} · ${percentSent(t)}% · ${formatBytes(t.loaded)} of ${formatBytes(t.total)}`;
}

/** What an import did, in a line: "Imported 14 files into 2 groups: 9 added, 5 unchanged; 3 skipped". */
export function importSummary(r: { readonly added: number; readonly unchanged: number; readonly groups: readonly unknown[]; readonly skipped: readonly unknown[] }): string {
  const groups = r.groups.length === 0 ? '' : ` into ${r.groups.length === 1 ? '1 group' : `${r.groups.length} groups`}`;
  const skipped = r.skipped.length > 0 ? `; ${r.skipped.length} skipped` : '';
  return `Imported ${fileCount(r.added + r.unchanged)}${groups}: ${r.added} added, ${r.unchanged} unchanged${skipped}`;
}

/** "14 files", "1 file". */
export function fileCount(n: number): string {
  return n === 1 ? '1 file' : `${n} files`;
}
