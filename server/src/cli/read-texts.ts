import { readFile } from 'node:fs/promises';
import type { Output } from './analyze-command';

/** The texts of `files`, in order, or null once one cannot be read (said on `io.err` as `seam: cannot read …`). */
export async function readTexts(files: readonly string[], io: Output): Promise<string[] | null> {
  const texts: string[] = [];
  for (const f of files) {
    try {
      texts.push(await readFile(f, 'utf8'));
    } catch (e) {
      io.err(`seam: cannot read ${f}: ${e instanceof Error ? e.message : String(e)}`);
      return null;
    }
  }
  return texts;
}
