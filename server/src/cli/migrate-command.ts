import { StoreUnavailableError } from '../store/store-errors';
import type { PushOutput } from './push-command';
import { columns } from './format';
import { copyDataDir, DataDirError, type CopyProgress } from './migrate-copy';

/** The URL as it may be printed: without its password. */
function shown(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*):[^@]*@/, '$1:***@');
}

/**
 * `seam migrate DATA_DIR DATABASE_URL`: copies an embedded data directory (`seam.db`) into
 * PostgreSQL for scaled mode, every table with a PostgreSQL form, in batches, idempotently. Shows
 * a progress line per table (rewritten in place on a terminal) and ends with a summary: per table
 * the rows in `seam.db` and how many were added (the others were there already). Exit 0 when
 * copied, 1 when the data directory has no `seam.db` or PostgreSQL cannot be reached.
 */
export async function runMigrate(dataDir: string, url: string, io: PushOutput): Promise<number> {
  let last = '';
  const progress = (p: CopyProgress) => {
    const line = `seam: migrating ${p.table}: ${p.done.toLocaleString('en-US')} of ${p.total.toLocaleString('en-US')} rows`;
    if (io.status) io.status(line);
    else if (p.done === p.total && p.table !== last) {
      // Without a terminal, one line per table, once it is copied.
      last = p.table;
      io.err(line);
    }
  };
  try {
    const summary = await copyDataDir(dataDir, url, progress);
    io.status?.('\n');
    const rows = summary.reduce((n, t) => n + t.rows, 0);
    const added = summary.reduce((n, t) => n + t.added, 0);
    for (const line of columns([['table', 'rows', 'added', 'already there'], ...summary.map((t) => [t.table, String(t.rows), String(t.added), String(t.rows - t.added)])])) io.out(line);
    io.out(`Copied ${dataDir} into ${shown(url)}: ${added} of ${rows} rows added, ${rows - added} already there.`);
    return 0;
  } catch (err) {
    io.status?.('\n');
    if (err instanceof DataDirError || err instanceof StoreUnavailableError) {
      io.err(`seam: ${err.message.replaceAll(url, shown(url))}`);
      return 1;
    }
    throw err;
  }
}
