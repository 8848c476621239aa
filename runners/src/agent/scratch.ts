import { constants, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, sep } from 'node:path';
import { unmountQuota } from './quota';

/** Where capture scratch directories live: `$TMPDIR/seam-runner/<agent pid>-<random>/`. */
export function scratchRoot(): string {
  return join(tmpdir(), 'seam-runner');
}

/** Makes a fresh scratch directory for one capture, named after this agent's pid. */
export function makeScratch(root = scratchRoot()): string {
  mkdirSync(root, { recursive: true, mode: 0o700 });
  return mkdtempSync(join(root, `${process.pid}-`));
}

/**
 * Reads a file the capture left in its scratch folder `scratch`, as the agent (often root) may not
 * trust it to: null unless it is a plain file whose folder lies inside `scratch` (no symlink out of
 * it, none as the file itself); `'too-big'` past `maxBytes`. Call it once every process of the
 * job is gone, so that nothing can swap the path meanwhile.
 */
export async function readScratchFile(scratch: string, path: string, maxBytes: number): Promise<Buffer | null | 'too-big'> {
  let handle;
  try {
    const [root, folder] = await Promise.all([realpath(scratch), realpath(dirname(path))]);
    if (folder !== root && !folder.startsWith(root + sep)) return null;
    handle = await open(join(folder, basename(path)), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return null;
    if (st.size > maxBytes) return 'too-big';
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** Records the process group of the capture running in `dir`, so a later agent can stop it. */
export function recordGroup(dir: string, pgid: number): void {
  writeFileSync(join(dir, '.pgid'), String(pgid));
}

/** Whether process `pid` exists (EPERM: it does, as another user's). */
export function alive(pid: number): boolean {
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
    unmountQuota(dir);
    rmSync(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}
