import { detectKind, diffToMarkdown } from '@seam/shared/ir';
import { DocumentKind } from '@seam/shared/model';
import type { Output } from './analyze-command';
import { diffInThreads, startSideThread, type SideThread } from './diff-threads';
import { readTexts } from './read-texts';

const HLO_KINDS: ReadonlySet<string> = new Set([DocumentKind.hlo, DocumentKind.hloOpt]);

/**
 * `seam diff A B [--json]`: the structural diff of two HLO modules (two captures, two uploads, two
 * pass dumps), A the base. Each file must be HLO (before or after optimization: the kind is read
 * from the text). Markdown by default; `--json` prints the whole `ModuleDiff` as one line. Parse
 * errors are said on stderr and the diff is still made of what could be read. Returns the exit
 * status: 0 when diffed, 1 when a file cannot be read or is not HLO. B is read in a worker thread
 * while A is read here.
 */
export async function runDiff(files: readonly [string, string], json: boolean, io: Output): Promise<number> {
  // The thread that reads B starts while the files are read; it is ended however this returns.
  const side = startSideThread();
  try {
    return await diffFiles(files, json, io, side);
  } finally {
    side.close();
  }
}

async function diffFiles(files: readonly [string, string], json: boolean, io: Output, side: SideThread): Promise<number> {
  const texts = await readTexts(files, io);
  if (texts === null) return 1;
  const kinds = texts.map((t) => detectKind(t));
  for (let i = 0; i < 2; i++) {
    if (!HLO_KINDS.has(kinds[i] ?? '')) {
      io.err(`seam: ${files[i]} looks like ${kinds[i]}, not HLO; diff compares two HLO modules (as XLA prints them, before or after optimization)`);
      return 1;
    }
  }
  const [a = '', b = ''] = texts;
  const d = await diffInThreads(a, b, { kindA: kinds[0] as DocumentKind, kindB: kinds[1] as DocumentKind }, side);
  for (const [i, list] of [d.diagnostics.a, d.diagnostics.b].entries()) {
    const errors = list.filter((x) => x.severity === 'error');
    if (errors.length > 0) io.err(`seam: ${files[i]}: ${errors.length}${errors.length === list.length ? '' : '+'} parse errors; first: ${errors[0]?.message}`);
  }
  if (json) io.out(JSON.stringify({ a: files[0], b: files[1], diff: d }));
  else io.out(diffToMarkdown(d, { a: files[0], b: files[1] }));
  return 0;
}
