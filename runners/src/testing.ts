import { readFileSync } from 'node:fs';

/**
 * Whether `pid` is a live process: present in /proc and not a zombie waiting to be reaped. For
 * tests that check a capture's processes are gone (Linux only; false where /proc cannot be read).
 */
export function isLiveProcess(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
