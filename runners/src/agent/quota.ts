import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** How a scratch folder's size is bounded for one job. */
export interface ScratchQuota {
  /** True when a size-limited tmpfs holds the folder (the kernel refuses writes past it: ENOSPC). */
  readonly mounted: boolean;
  /** Unmounts the tmpfs, if any (its files go with it). */
  release(): void;
}

/** Unmounts whatever is mounted on `dir`; quiet when nothing is. */
export function unmountQuota(dir: string): void {
  spawnSync('umount', ['--lazy', dir], { stdio: 'ignore', timeout: 10_000 });
}

/**
 * Prepares the scratch folder `dir` for a job. As root (`user` given): mounts a tmpfs of `bytes`
 * on it, owned by the sandbox user with group root (mode 0770, nosuid, nodev); if that fails, the
 * folder is handed to that user and the caller must watch its size. Unprivileged: nothing to do
 * here; the caller watches (see {@link watchQuota}).
 */
export function applyQuota(dir: string, bytes: number, user: { readonly uid: number; readonly gid: number } | null): ScratchQuota {
  if (!user) return { mounted: false, release: () => {} };
  if (bytes > 0) {
    const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0770,uid=${user.uid},gid=0,nosuid,nodev`, 'seam-scratch', dir], { stdio: 'ignore', timeout: 10_000 });
    if (r.status === 0) return { mounted: true, release: () => unmountQuota(dir) };
  }
  chownSync(dir, user.uid, 0);
  chmodSync(dir, 0o770);
  return { mounted: false, release: () => {} };
}

/** More entries than this in a scratch folder count as past the quota (a walk must stay cheap). */
const MAX_ENTRIES = 100_000;

/** Bytes of disk that `dir` holds (allocated blocks, so sparse files count as written); Infinity past {@link MAX_ENTRIES} entries. */
export async function diskUsage(dir: string): Promise<number> {
  let total = 0;
  let entries = 0;
  const stack = [dir];
  while (stack.length > 0) {
    const d = stack.pop() ?? '';
    let names: string[];
    try {
      names = await readdir(d);
    } catch {
      continue; // removed while we looked, or not ours to read
    }
    for (const n of names) {
      if (++entries > MAX_ENTRIES) return Infinity;
      const p = join(d, n);
      try {
        const s = await lstat(p);
        total += s.blocks * 512;
        if (s.isDirectory()) stack.push(p);
      } catch {
        // Removed while we looked.
      }
    }
  }
  return total;
}

/**
 * Checks `dir` every `intervalMs` and calls `onExceeded` once when it holds more than `bytes`.
 * Returns a function that stops watching.
 */
export function watchQuota(dir: string, bytes: number, onExceeded: () => void, intervalMs = 250): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = async () => {
    if (stopped) return;
    if ((await diskUsage(dir)) > bytes) {
      if (!stopped) onExceeded();
      return;
    }
    if (!stopped) timer = setTimeout(() => void tick(), intervalMs);
  };
  timer = setTimeout(() => void tick(), intervalMs);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
