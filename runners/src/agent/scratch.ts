import { mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where capture scratch directories live: `$TMPDIR/seam-runner/<agent pid>-<random>/`. */
export function scratchRoot(): string {
  return join(tmpdir(), 'seam-runner');
}

/** Makes a fresh scratch directory for one capture, named after this agent's pid. */
export async function makeScratch(root = scratchRoot()): Promise<string> {
  mkdirSync(root, { recursive: true, mode: 0o700 });
  return mkdtemp(join(root, `${process.pid}-`));
}

/** Records the process group of the capture running in `dir`, so a later agent can stop it. */
export function recordGroup(dir: string, pgid: number): void {
  writeFileSync(join(dir, '.pgid'), String(pgid));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Cleans up after agents that died without cleaning up (SIGKILL, power loss): for each scratch
 * directory whose agent pid is gone, kills the capture's process group if it still runs there
 * (checked by its working directory, so a reused pid is never hit) and removes the directory.
 * Returns the directories removed.
 */
export function sweepStaleScratch(root = scratchRoot()): string[] {
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of entries) {
    const owner = Number(name.split('-')[0]);
    if (!Number.isInteger(owner) || owner <= 0 || owner === process.pid || alive(owner)) continue;
    const dir = join(root, name);
    try {
      const pgid = Number(readFileSync(join(dir, '.pgid'), 'utf8'));
      if (pgid > 0 && readlinkSync(`/proc/${pgid}/cwd`) === dir) process.kill(-pgid, 'SIGKILL');
    } catch {
      // No record, no such process, or no /proc: nothing left to stop.
    }
    rmSync(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}
