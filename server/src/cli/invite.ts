import { resolve } from 'node:path';
import { SharedInvitations } from '../auth/invitations';
import { SyncMode } from '../config';
import { openPostgresStore } from '../store/postgres';
import type { SharedStore } from '../store/shared-store';
import { openSqliteSharedStore } from '../store/sqlite-shared-store';
import type { InvitationRow } from '../store/invitations-store';

const USAGE = `usage: npm run -w @seam/server invite -- <command> [--data DIR]
  create [--uses N] [--expires DURATION] [--note TEXT]
                mint an invitation to create rooms (printed once; only its hash is stored).
                --uses: rooms it may create (default 1); --expires: e.g. 30m, 12h, 7d, 2w
                (default: never); --note: who it is for. With SEAM_PUBLIC_URL set, also
                prints the lobby link that carries it.
  list          list invitations (id, note, uses left, expiry, state); never the secrets
  revoke ID     revoke an invitation
The data directory defaults to $SEAM_DATA_DIR, else ./data. With $SEAM_DATABASE_URL set (scaled
mode) the invitations are those in PostgreSQL, honoured by every instance, and --data is not used.`;

/** Where the command writes. */
export interface InviteIo {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `30m`, `12h`, `7d`, `2w` in milliseconds; null for anything else. */
export function parseDuration(text: string): number | null {
  const m = /^(\d+)([mhdw])$/.exec(text.trim());
  if (!m) return null;
  const ms = Number(m[1]) * (UNIT_MS[m[2] ?? ''] ?? 0);
  return ms > 0 ? ms : null;
}

/** The state an operator reads in `list`, as of `now`. */
export function invitationState(inv: InvitationRow, now: number): 'live' | 'revoked' | 'expired' | 'used up' {
  if (inv.revokedAt !== null) return 'revoked';
  if (inv.expiresAt !== null && inv.expiresAt <= now) return 'expired';
  return inv.usesLeft > 0 ? 'live' : 'used up';
}

/** Thrown for a command line that cannot be run; the message says why. */
class InviteUsageError extends Error {}

/** Takes `--name VALUE` out of `args`; undefined when absent. */
function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  const value = args[at + 1];
  if (value === undefined) throw new InviteUsageError(`${name} needs a value`);
  args.splice(at, 2);
  return value;
}

/**
 * `npm run -w @seam/server invite -- create|list|revoke` against the server's data directory, or
 * against PostgreSQL when `SEAM_DATABASE_URL` is set (scaled mode). Resolves to the exit code:
 * 0 done, 1 nothing to revoke, 2 a bad command line.
 */
export async function runInviteCli(argv: readonly string[], env: Record<string, string | undefined>, io: InviteIo): Promise<number> {
  const args = [...argv];
  let uses: number | undefined;
  let expiresInMs: number | undefined;
  let note: string | undefined;
  let dataDir: string;
  try {
    dataDir = option(args, '--data') ?? (env.SEAM_DATA_DIR || './data');
    const usesText = option(args, '--uses');
    const expiresText = option(args, '--expires');
    note = option(args, '--note');
    if (usesText !== undefined) {
      uses = Number(usesText);
      if (!Number.isInteger(uses) || uses < 1) throw new InviteUsageError(`--uses must be a whole number ≥ 1, got "${usesText}"`);
    }
    if (expiresText !== undefined) {
      expiresInMs = parseDuration(expiresText) ?? undefined;
      if (expiresInMs === undefined) throw new InviteUsageError(`--expires must be a number and a unit (m, h, d, w), e.g. 7d; got "${expiresText}"`);
    }
    const [command, ...rest] = args;
    const wanted = command === 'revoke' ? 1 : 0;
    if (command !== 'create' && command !== 'list' && command !== 'revoke') throw new InviteUsageError(command === undefined ? 'which command?' : `unknown command "${command}"`);
    if (rest.length < wanted) throw new InviteUsageError('revoke needs the ID of an invitation (see list)');
    if (rest.length > wanted) throw new InviteUsageError(`unexpected "${rest.slice(wanted).join(' ')}" after ${command}`);
  } catch (e) {
    if (!(e instanceof InviteUsageError)) throw e;
    io.err(`${e.message}\n${USAGE}`);
    return 2;
  }
  const [command, id] = args;
  const store: SharedStore = env.SEAM_DATABASE_URL
    ? await openPostgresStore(env.SEAM_DATABASE_URL, { max: 1 })
    : // npm runs workspace scripts in the workspace folder; a relative path means the caller's folder.
      openSqliteSharedStore(resolve(env.INIT_CWD ?? process.cwd(), dataDir), SyncMode.normal);
  try {
    const invitations = new SharedInvitations(store.invitations);
    if (command === 'create') {
      const inv = await invitations.create({ uses, expiresInMs, note });
      const expiry = inv.expiresAt === null ? 'never expires' : `expires ${new Date(inv.expiresAt).toISOString()}`;
      io.out(`invitation ${inv.id} for ${inv.uses} room${inv.uses === 1 ? '' : 's'}, ${expiry}; shown once, keep it secret:\n${inv.secret}`);
      if (env.SEAM_PUBLIC_URL) io.out(`lobby link: ${env.SEAM_PUBLIC_URL.replace(/\/+$/, '')}/#invite=${inv.secret}`);
    } else if (command === 'revoke') {
      if (!(await invitations.revoke(id ?? ''))) {
        io.err(`no live invitation with id ${id}`);
        return 1;
      }
      io.out(`revoked ${id}`);
    } else {
      const now = Date.now();
      for (const inv of await invitations.list()) {
        const expires = inv.expiresAt === null ? 'never' : new Date(inv.expiresAt).toISOString();
        io.out([inv.id, `${inv.usesLeft}/${inv.uses} left`, `expires ${expires}`, invitationState(inv, now), JSON.stringify(inv.note)].join('\t'));
      }
    }
    return 0;
  } finally {
    await store.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  void runInviteCli(process.argv.slice(2), process.env, {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  }).then((code) => {
    process.exitCode = code;
  });
}
