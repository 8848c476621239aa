import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run bench [filter…]`: runs every `test/bench/*.bench.ts` one after another, each in its own
 * process so that one benchmark's heap and sockets never colour the next. A filter keeps the files
 * whose name contains it.
 */
const here = dirname(fileURLToPath(import.meta.url));
/** Filters that also run other files: `class` is a class taking a drill, then replaying its session. */
const ALSO: Record<string, readonly string[]> = { class: ['replay'] };
const filters = process.argv.slice(2).flatMap((x) => [x, ...(ALSO[x] ?? [])]);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();

let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file} (${new Date().toISOString()})`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', join(here, file)], { stdio: 'inherit' });
  if (run.status !== 0) {
    failed += 1;
    console.error(`${file} exited with ${run.status ?? run.signal}`);
  }
}
process.exit(failed === 0 ? 0 : 1);
