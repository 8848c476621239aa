import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Invitations } from '../auth/invitations';
import { parseDuration, runInviteCli } from './invite';

const root = fileURLToPath(new URL('../../../', import.meta.url));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'seam-invite-cli-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the command in this process against `dir`; returns its exit code and what it printed. */
async function invite(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runInviteCli(args, { SEAM_DATA_DIR: dir, ...env }, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Redeems `secret` against the data directory the command wrote to. */
function redeemIn(secret: string): string {
  const db = new Database(join(dir, 'seam.db'));
  try {
    new Invitations(db).redeem(secret);
    return 'spent';
  } catch (e) {
    return (e as { code: string }).code;
  } finally {
    db.close();
  }
}

const secretOf = (out: string): string => /inv_[A-Za-z0-9_-]{43}/.exec(out)?.[0] ?? '';

describe('invite command', () => {
  it('creates an invitation that works, lists it with uses, note and expiry, and revokes it', async () => {
    const created = await invite(['create', '--uses', '2', '--expires', '7d', '--note', 'class A']);
    expect(created.code).toBe(0);
    expect(created.out).toMatch(/^invitation [0-9a-f]{12} for 2 rooms, expires \d{4}-.*shown once/);
    const secret = secretOf(created.out);
    const id = /invitation ([0-9a-f]{12})/.exec(created.out)?.[1] ?? '';
    expect(redeemIn(secret)).toBe('spent');
    const listed = await invite(['list']);
    expect(listed.out).toMatch(new RegExp(`^${id}\\t1/2 left\\texpires \\d{4}-\\S+\\tlive\\t"class A"$`));
    expect(listed.out).not.toContain(secret);
    expect(await invite(['revoke', id])).toMatchObject({ code: 0, out: `revoked ${id}` });
    expect((await invite(['list'])).out).toContain('\trevoked\t');
    expect(redeemIn(secret)).toBe('invitation_revoked');
    expect(await invite(['revoke', id])).toMatchObject({ code: 1, err: `no live invitation with id ${id}` });
  });

  it('defaults to one use that never expires, and prints the lobby link when SEAM_PUBLIC_URL is set', async () => {
    const { out } = await invite(['create'], { SEAM_PUBLIC_URL: 'https://seam.example.org/' });
    expect(out).toMatch(/for 1 room, never expires/);
    const secret = secretOf(out);
    expect(out).toContain(`lobby link: https://seam.example.org/#invite=${secret}`);
    expect((await invite(['list'])).out).toMatch(/\t1\/1 left\texpires never\tlive\t""$/);
  });

  it.each([
    [['create', '--uses', '0'], /--uses must be a whole number ≥ 1, got "0"/],
    [['create', '--expires', '7'], /--expires must be a number and a unit/],
    [['create', '--note'], /--note needs a value/],
    [['revoke'], /revoke needs the ID/],
    [['list', 'extra'], /unexpected "extra" after list/],
    [['mint'], /unknown command "mint"/],
    [[], /which command\?/],
  ])('answers 2 with the reason and the usage for %j', async (args, reason) => {
    const { code, err, out } = await invite(args);
    expect(code).toBe(2);
    expect(err).toMatch(reason);
    expect(err).toContain('usage: npm run -w @seam/server invite');
    expect(out).toBe('');
  });

  it('reads durations in minutes, hours, days and weeks', () => {
    expect([parseDuration('30m'), parseDuration('12h'), parseDuration('7d'), parseDuration('2w')]).toEqual([1_800_000, 43_200_000, 604_800_000, 1_209_600_000]);
    for (const bad of ['0d', '7', 'd', '1.5h', '-1d', '7y']) expect(parseDuration(bad)).toBeNull();
  });

  it('runs as `npm run -w @seam/server invite`, with a relative --data meaning the caller’s folder', { timeout: 60_000 }, async () => {
    const result = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      const child = spawn('npm', ['run', '--silent', '--prefix', root, '-w', '@seam/server', 'invite', '--', 'create', '--data', './d'], { cwd: dir });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout }));
    });
    expect(result.code).toBe(0);
    const db = new Database(join(dir, 'd', 'seam.db'));
    try {
      expect(() => new Invitations(db).redeem(secretOf(result.stdout))).not.toThrow();
    } finally {
      db.close();
    }
  });
});
