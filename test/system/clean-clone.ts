import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
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
 * code is what runs. That is only honest when every package the clone's `package-lock.json` names
 * is installed at its locked version, so it throws when one is not (see `lockMismatches`).
 */
export function cleanClone(root: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'seam-clone-'));
  try {
    execFileSync('git', ['clone', '--quiet', root, dir], { stdio: ['ignore', 'ignore', 'inherit'] });
    const mismatches = lockMismatches(join(dir, 'package-lock.json'), root);
    if (mismatches.length > 0) throw new Error(`the committed package-lock.json is not what is installed (${mismatches.slice(0, 5).join('; ')}): run npm ci`);
    linkNodeModules(join(root, 'node_modules'), join(dir, 'node_modules'));
    for (const ws of WORKSPACES) {
      const own = join(root, ws, 'node_modules');
      if (existsSync(own) && existsSync(join(dir, ws))) symlinkSync(own, join(dir, ws, 'node_modules'));
    }
    return dir;
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/** Each package of the lockfile at `lockPath` that `root` lacks or holds at another version (optional ones may be absent). */
export function lockMismatches(lockPath: string, root: string): string[] {
  const lock = JSON.parse(readFileSync(lockPath, 'utf8')) as { packages: Record<string, { version?: string; link?: boolean; optional?: boolean }> };
  const out: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path.includes('node_modules/') || entry.link || entry.version === undefined) continue;
    const manifest = join(root, path, 'package.json');
    if (!existsSync(manifest)) {
      if (!entry.optional) out.push(`${path} is not installed`);
      continue;
    }
    const installed = (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version;
    if (installed !== entry.version) out.push(`${path} is ${installed ?? 'unversioned'}, locked ${entry.version}`);
  }
  return out;
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
