import { runAnalyze, type Output } from './analyze-command';
import { parseArgs, USAGE, UsageError } from './args';
import { runDiff } from './diff-command';
import { runGate } from './gate-command';
import { runLink } from './link-command';
import { runPush, type PushOutput } from './push-command';

/** Runs one `seam` command line; resolves to the exit status (2 for a bad command line). */
export async function runCli(argv: readonly string[], io: Output & Pick<PushOutput, 'status'>, stop?: AbortSignal): Promise<number> {
  let cmd;
  try {
    cmd = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`seam: ${e.message}`);
    io.err(USAGE);
    return 2;
  }
  switch (cmd.name) {
    case 'help':
      io.out(USAGE);
      return 0;
    case 'analyze':
      return runAnalyze(cmd.files, cmd.json, cmd.top, io);
    case 'link':
      return runLink(cmd.files, cmd.format, io);
    case 'diff':
      return runDiff(cmd.files, cmd.json, io);
    case 'gate':
      return runGate(cmd.dir, { bar: cmd.bar, json: cmd.json, ...(cmd.value !== undefined ? { value: cmd.value } : {}) }, io);
    case 'push':
      return runPush(cmd.link, cmd.paths, { watch: cmd.watch, quietSeconds: cmd.quietSeconds }, io, stop);
    case 'migrate':
      // Loaded only here: the other commands need neither SQLite nor PostgreSQL.
      return (await import('./migrate-command')).runMigrate(cmd.dataDir, cmd.url, io);
  }
}
