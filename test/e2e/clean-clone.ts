import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Folders of the npm workspaces, each of which may hold its own `node_modules`. */
const WORKSPACES = ['shared', 'server', 'web', 'runners', 'test'];

/** Entries of `node_modules` that are caches written by builds, which a clone must not share. */
const CACHES = new Set(['.vite', '.cache', '.vite-temp']);

/**
 * A clean clone of the committed HEAD of the repository at `root` in a temp folder: only what is
 * committed, no build output, no virtualenv, no data. Instead of `npm ci` (minutes) it gets a
 * `node_modules` of links: each installed package links to `root`'s copy, while the workspace
 * packages (`@seam/*`) and the `.bin` commands resolve to the clone's own sources, so the clone's
 * code is what runs. That is only honest when the lockfile is the one installed, so it throws when
 * the clone's `package-lock.json` differs from `root`'s.
 */
export function cleanClone(root: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'seam-clone-'));
  execFileSync('git', ['clone', '--quiet', root, dir], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (readFileSync(join(dir, 'package-lock.json'), 'utf8') !== readFileSync(join(root, 'package-lock.json'), 'utf8')) {
    throw new Error('the committed package-lock.json differs from the installed one: run npm ci in a real clone instead');
  }
  linkNodeModules(join(root, 'node_modules'), join(dir, 'node_modules'));
  for (const ws of WORKSPACES) {
    const own = join(root, ws, 'node_modules');
    if (existsSync(own) && existsSync(join(dir, ws))) symlinkSync(own, join(dir, ws, 'node_modules'));
  }
  return dir;
}

/** Links each package of `from` into a new `to`; relative links (workspaces, `.bin`) are copied as they are, so they resolve inside the clone. */
function linkNodeModules(from: string, to: string): void {
  mkdirSync(to);
  for (const name of readdirSync(from)) {
    if (CACHES.has(name)) continue;
    const src = join(from, name);
    const stat = lstatSync(src);
    if (stat.isSymbolicLink()) {
      symlinkSync(readlinkSync(src), join(to, name));
    } else if (stat.isDirectory() && (name.startsWith('@') || name === '.bin')) {
      // A scope or the commands: one level further, so `@seam/*` and `.bin/*` keep their relative links.
      linkNodeModules(src, join(to, name));
    } else {
      symlinkSync(src, join(to, name));
    }
  }
}
