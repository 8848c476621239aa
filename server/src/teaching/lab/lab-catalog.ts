import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LabFormatError, parseLab, type Lab } from '@seam/shared/teaching';

/** The repository's `labs/` folder, where the shipped labs are. */
export const DEFAULT_LABS_DIR = fileURLToPath(new URL('../../../../labs/', import.meta.url));

/** Most lab files a folder may hold, and the largest one read. */
export const MAX_LAB_FILES = 200;
export const MAX_LAB_FILE_BYTES = 1024 * 1024;

/** The labs the server offers, read once from a folder of `<id>.json` files. */
export class LabCatalog {
  private readonly byId: ReadonlyMap<string, Lab>;

  constructor(labs: readonly Lab[]) {
    this.byId = new Map(labs.map((l) => [l.id, l]));
  }

  /** Every lab, by id. */
  list(): Lab[] {
    return [...this.byId.values()].sort((a, b) => a.id.localeCompare(b.id));
  }

  get(id: string): Lab | undefined {
    return this.byId.get(id);
  }
}

/**
 * Reads every `*.json` file of `dir` as a lab. Throws {@link LabFormatError} naming the file for
 * one that is too large, not a lab, or whose id another file already has, so that a server with a
 * broken lab refuses to start. A missing folder gives no labs.
 */
export function loadLabs(dir: string = DEFAULT_LABS_DIR): LabCatalog {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json')).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return new LabCatalog([]);
    throw e;
  }
  if (names.length > MAX_LAB_FILES) throw new LabFormatError(dir, `holds ${names.length} lab files; at most ${MAX_LAB_FILES} are read`);
  const labs: Lab[] = [];
  const seen = new Map<string, string>();
  for (const name of names) {
    const path = join(dir, name);
    const size = statSync(path).size;
    if (size > MAX_LAB_FILE_BYTES) throw new LabFormatError(name, `is ${size} bytes; a lab file is at most ${MAX_LAB_FILE_BYTES}`);
    const lab = parseLab(name, readFileSync(path, 'utf8'));
    const other = seen.get(lab.id);
    if (other) throw new LabFormatError(name, `id ${lab.id} is already the id of ${other}`);
    seen.set(lab.id, name);
    labs.push(lab);
  }
  return new LabCatalog(labs);
}
