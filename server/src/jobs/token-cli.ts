import { resolve } from 'node:path';
import { openDatabase } from '../store/db';
import { SyncMode } from '../config';
import { RunnerNameError, RunnerTokens } from './runner-tokens';

const USAGE = `usage: npm run runner-token -- <command> [--data DIR]
  create NAME   create a runner token bound to the runner name NAME (printed once; only its hash
                is stored); "local" is reserved for the server's own runner
  list          list runner tokens (ids, names, revoked or not)
  revoke ID     revoke a token; runners using it are disconnected
The data directory defaults to $SEAM_DATA_DIR, else ./data.`;

const out = (line: string) => process.stdout.write(line + '\n');

/** `npm run runner-token -- create|list|revoke` against the server's data directory. Returns the exit code. */
export function runTokenCli(argv: readonly string[], env: Record<string, string | undefined>): number {
  const args = [...argv];
  let dataDir = env.SEAM_DATA_DIR || './data';
  const at = args.indexOf('--data');
  if (at >= 0) {
    dataDir = args[at + 1] ?? dataDir;
    args.splice(at, 2);
  }
  const [command, value] = args;
  if (command !== 'list' && (command !== 'create' && command !== 'revoke' || !value)) {
    console.error(USAGE);
    return 2;
  }
  // npm runs workspace scripts in the workspace folder; a relative path means the caller's folder.
  const db = openDatabase(resolve(env.INIT_CWD ?? process.cwd(), dataDir), SyncMode.normal);
  try {
    const tokens = new RunnerTokens(db);
    if (command === 'create') {
      let t: ReturnType<RunnerTokens['create']>;
      try {
        t = tokens.create(value ?? '');
      } catch (err) {
        if (!(err instanceof RunnerNameError)) throw err;
        console.error(err.message);
        return 2;
      }
      out(`runner token for "${t.name}" (id ${t.id}), usable only by a runner started with --name ${t.name}; shown once, keep it secret:\n${t.token}`);
    } else if (command === 'revoke') {
      if (!tokens.revoke(value ?? '')) {
        console.error(`no live runner token with id ${value}`);
        return 1;
      }
      out(`revoked ${value}`);
    } else {
      for (const t of tokens.list()) {
        out(`${t.id}\t${t.name}\t${new Date(t.createdAt).toISOString()}\t${t.revokedAt === null ? 'live' : 'revoked'}`);
      }
    }
    return 0;
  } finally {
    db.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = runTokenCli(process.argv.slice(2), process.env);
}
