import { resolve } from 'node:path';
import { openDatabase } from '../store/db';
import { SyncMode } from '../config';
import { openPostgresStore } from '../store/postgres';
import { StoreInputError } from '../store/store-errors';
import { RunnerNameError, RunnerTokens, type RunnerTokenInfo } from './runner-tokens';

const USAGE = `usage: npm run runner-token -- <command> [--data DIR]
  create NAME   create a runner token bound to the runner name NAME (printed once; only its hash
                is stored); "local" is reserved for the server's own runner
  list          list runner tokens (ids, names, revoked or not)
  revoke ID     revoke a token; runners using it are disconnected
The data directory defaults to $SEAM_DATA_DIR, else ./data. With $SEAM_DATABASE_URL set (scaled
mode) the tokens are those in PostgreSQL, and --data is not used.`;

/** Where the CLI writes: a line to stdout, a line to stderr. */
export interface CliOutput {
  out(line: string): void;
  err(line: string): void;
}

const STD: CliOutput = { out: (line) => process.stdout.write(line + '\n'), err: (line) => process.stderr.write(line + '\n') };

type TokenArgs = { readonly command: 'create' | 'revoke'; readonly value: string; readonly dataDir: string } | { readonly command: 'list'; readonly dataDir: string };

/** The command line, or null when it is not one of the commands (the usage is then printed). */
function parseArgs(argv: readonly string[], env: Record<string, string | undefined>): TokenArgs | null {
  const args = [...argv];
  let dataDir = env.SEAM_DATA_DIR || './data';
  const at = args.indexOf('--data');
  if (at >= 0) {
    dataDir = args[at + 1] ?? dataDir;
    args.splice(at, 2);
  }
  const [command, value] = args;
  if (command === 'list') return { command, dataDir };
  if ((command === 'create' || command === 'revoke') && value) return { command, value, dataDir };
  return null;
}

const createdLine = (t: RunnerTokenInfo & { readonly token: string }) =>
  `runner token for "${t.name}" (id ${t.id}), usable only by a runner started with --name ${t.name}; shown once, keep it secret:\n${t.token}`;
const listLine = (t: RunnerTokenInfo) => `${t.id}\t${t.name}\t${new Date(t.createdAt).toISOString()}\t${t.revokedAt === null ? 'live' : 'revoked'}`;
const notRevoked = (id: string) => `no live runner token with id ${id}`;

/** `npm run runner-token -- create|list|revoke` against the server's data directory (embedded mode). Returns the exit code. */
export function runTokenCli(argv: readonly string[], env: Record<string, string | undefined>, io: CliOutput = STD): number {
  const a = parseArgs(argv, env);
  if (!a) {
    io.err(USAGE);
    return 2;
  }
  // npm runs workspace scripts in the workspace folder; a relative path means the caller's folder.
  const db = openDatabase(resolve(env.INIT_CWD ?? process.cwd(), a.dataDir), SyncMode.normal);
  try {
    const tokens = new RunnerTokens(db);
    if (a.command === 'create') {
      try {
        io.out(createdLine(tokens.create(a.value)));
      } catch (err) {
        if (!(err instanceof RunnerNameError)) throw err;
        io.err(err.message);
        return 2;
      }
    } else if (a.command === 'revoke') {
      if (!tokens.revoke(a.value)) {
        io.err(notRevoked(a.value));
        return 1;
      }
      io.out(`revoked ${a.value}`);
    } else {
      for (const t of tokens.list()) io.out(listLine(t));
    }
    return 0;
  } finally {
    db.close();
  }
}

/** The same commands against the runner tokens in PostgreSQL at `databaseUrl` (scaled mode). Resolves to the exit code. */
export async function runSharedTokenCli(argv: readonly string[], env: Record<string, string | undefined>, databaseUrl: string, io: CliOutput = STD): Promise<number> {
  const a = parseArgs(argv, env);
  if (!a) {
    io.err(USAGE);
    return 2;
  }
  const store = await openPostgresStore(databaseUrl, { max: 1 });
  try {
    const tokens = store.runnerTokens;
    if (a.command === 'create') {
      try {
        io.out(createdLine(await tokens.create(a.value)));
      } catch (err) {
        if (!(err instanceof RunnerNameError || err instanceof StoreInputError)) throw err;
        io.err(err.message);
        return 2;
      }
    } else if (a.command === 'revoke') {
      if (!(await tokens.revoke(a.value))) {
        io.err(notRevoked(a.value));
        return 1;
      }
      io.out(`revoked ${a.value}`);
    } else {
      for (const t of await tokens.list()) io.out(listLine(t));
    }
    return 0;
  } finally {
    await store.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.env.SEAM_DATABASE_URL;
  if (url) process.exitCode = await runSharedTokenCli(process.argv.slice(2), process.env, url);
  else process.exitCode = runTokenCli(process.argv.slice(2), process.env);
}
