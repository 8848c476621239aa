import { closeSync, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

/** Options of {@link acquireLock}. */
export interface LockOptions {
  /** How long to wait for another holder before giving up; default 20 minutes (a first JAX download). */
  readonly timeoutMs?: number;
  /** How often to look again while waiting; default 250 ms. */
  readonly pollMs?: number;
  /** Called once, when the lock is held by another live process and this one starts waiting. */
  readonly onWait?: (holderPid: number | undefined) => void;
}

/** The lock could not be taken in time; the message names the lock file and its holder. */
export class LockTimeoutError extends Error {
  override readonly name = 'LockTimeoutError';
}

/** A held lock; `release` removes the lock file if it is still this holder's. */
export interface HeldLock {
  release(): void;
}

function readContent(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** The PID at the start of a lock file, e.g. `4242 9f3c…`. */
function readHolder(path: string): number | undefined {
  const pid = Number.parseInt(readContent(path) ?? '', 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Creates the lock file holding this process's PID, atomically: the PID is written to a private
 * file first and then hard-linked to `path`, which fails with EEXIST when someone holds the lock,
 * so no reader ever sees a lock file without its PID.
 */
function tryCreate(path: string, content: string): boolean {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const fd = openSync(tmp, 'wx');
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  } finally {
    unlinkSync(tmp);
  }
}

/**
 * Removes a lock left by a dead process. The file is first renamed away, so that of two waiters
 * that both saw the same dead holder only one removes it; if the renamed file turns out to name
 * another holder (a live one took the lock in between), it is linked back.
 */
function breakStale(path: string, deadPid: number): void {
  const aside = `${path}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  try {
    if (readHolder(aside) !== deadPid) linkSync(aside, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    unlinkSync(aside);
  }
}

/**
 * Takes an exclusive lock between processes (and between callers in one process): a file at
 * `path` that holds the holder's PID. A lock whose holder is no longer running is stale and is
 * taken over; a live holder is waited for, up to `timeoutMs`, then {@link LockTimeoutError}.
 */
export async function acquireLock(path: string, o: LockOptions = {}): Promise<HeldLock> {
  const deadline = Date.now() + (o.timeoutMs ?? 20 * 60_000);
  // The nonce tells this holder's file from one left by an earlier process with the same PID.
  const content = `${process.pid} ${randomBytes(8).toString('hex')}\n`;
  let told = false;
  for (;;) {
    if (tryCreate(path, content)) {
      return {
        release: () => {
          if (readContent(path) === content) unlinkSync(path);
        },
      };
    }
    const holder = readHolder(path);
    if (holder !== undefined && holder !== process.pid && !isAlive(holder)) {
      breakStale(path, holder);
      continue;
    }
    if (Date.now() >= deadline) {
      throw new LockTimeoutError(`${path} is still held by process ${holder ?? '(unknown)'}; if no such process is building, remove the file`);
    }
    if (!told) {
      o.onWait?.(holder);
      told = true;
    }
    await sleep(o.pollMs ?? 250);
  }
}
