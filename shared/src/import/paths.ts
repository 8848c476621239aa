/** Longest relative path a file of an import may have, in characters. */
export const MAX_IMPORT_PATH = 1024;

/**
 * Why `path` may not name a file inside an imported folder or archive, or null when it may: it
 * must be relative (no leading `/`, no drive letter such as `C:`), stay inside the folder (no `..`
 * segment), and hold no NUL or other control character. Backslashes count as separators, as
 * archives made on Windows write them. Pure; the server, the CLI and the browser share it.
 */
export function importPathProblem(path: string): string | null {
  if (path.length === 0) return 'the path is empty';
  if (path.length > MAX_IMPORT_PATH) return `the path is longer than ${MAX_IMPORT_PATH} characters`;
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'the path holds a NUL or control character';
  const p = path.replace(/\\/g, '/');
  if (p.startsWith('/')) return 'the path is absolute';
  if (/^[A-Za-z]:/.test(p)) return 'the path starts with a drive letter';
  const segments = p.split('/');
  if (segments.some((s) => s === '..')) return 'the path climbs out of the folder (..)';
  if (segments.every((s) => s === '' || s === '.')) return 'the path names no file';
  return null;
}

/** `path` with backslashes as slashes and without `.` or empty segments: `./a//b\\c` → `a/b/c`. Call after `importPathProblem`. */
export function normalizeImportPath(path: string): string {
  return path.replace(/\\/g, '/').split('/').filter((s) => s !== '' && s !== '.').join('/');
}

/** The folder part of a normalized path (`a/b/c.txt` → `a/b`, `c.txt` → ``). */
export function folderOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

/** The last segment of a normalized path. */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
