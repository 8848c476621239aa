import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireLock, LockTimeoutError } from './venv-lock';

/** Starts `node -e code` and resolves with the child once it runs. */
function node(code: string) {
  const child = spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, exited };
}

describe('acquireLock', () => {
  const dir = mkdtempSync(join(tmpdir(), 'seam-lock-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lets a second holder in only after the first released the lock', async () => {
    const path = join(dir, 'order.lock');
    const events: string[] = [];
    const first = await acquireLock(path);
    let waited: () => void = () => undefined;
    const waiting = new Promise<void>((resolve) => (waited = resolve));
    const second = acquireLock(path, { pollMs: 10, onWait: () => waited() }).then((l) => {
      events.push('second acquired');
      return l;
    });
    await waiting;
    events.push('first released');
    first.release();
    (await second).release();
    expect(events).toEqual(['first released', 'second acquired']);
    expect(existsSync(path)).toBe(false);
  });

  it('takes over a lock left by a process that has exited', async () => {
    const path = join(dir, 'stale.lock');
    const dead = node('');
    await dead.exited;
    writeFileSync(path, `${dead.child.pid} left-behind\n`);
    const lock = await acquireLock(path, { timeoutMs: 5_000 });
    expect(readFileSync(path, 'utf8')).toMatch(new RegExp(`^${process.pid} `));
    lock.release();
    expect(existsSync(path)).toBe(false);
  });

  it('gives up on a live holder after the timeout, naming its PID and the lock file', async () => {
    const path = join(dir, 'live.lock');
    const live = node('setTimeout(() => {}, 60_000)');
    try {
      writeFileSync(path, `${live.child.pid} busy\n`);
      const failure = await acquireLock(path, { timeoutMs: 300, pollMs: 20 }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(LockTimeoutError);
      expect((failure as Error).message).toContain(`held by process ${live.child.pid}`);
      expect((failure as Error).message).toContain(path);
      expect(readFileSync(path, 'utf8')).toBe(`${live.child.pid} busy\n`);
    } finally {
      live.child.kill('SIGKILL');
      await live.exited;
    }
  });

  it('does not remove a lock that another holder took after this one was released', async () => {
    const path = join(dir, 'handover.lock');
    const lock = await acquireLock(path);
    lock.release();
    const next = await acquireLock(path);
    lock.release();
    expect(existsSync(path)).toBe(true);
    next.release();
  });
});
