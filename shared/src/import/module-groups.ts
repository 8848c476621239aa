import type { DocumentKind, ModuleRef } from '../model/document';
import { recognizeName, type NameInfo } from './dump-names';

/** What an import does with one file, decided from the names of all its files. */
export type FilePlan =
  | { readonly path: string; readonly what: 'skip'; readonly reason: string }
  | { readonly path: string; readonly what: 'trace' }
  /** A text dump: its kind when the name fixes it (else its content decides), and its module group. */
  | { readonly path: string; readonly what: 'document'; readonly kind?: DocumentKind; readonly module?: ModuleRef };

/** A 56-bit hash of `s` as 14 hex digits (cyrb53): a stable, compact group id. Not for security. */
function hashId(s: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
}

/** A module group as grouping sees it: the folder its XLA files sit in, its number and name. */
interface Module {
  readonly groupId: string;
  readonly name: string;
  readonly number?: number;
  readonly folder: string;
}

/** The group id of XLA module `number`/`name` in `folder`: the same wherever and whenever that folder's files are imported. */
export const moduleGroupId = (folder: string, number: number, name: string): string => `m${hashId(`${folder}\u0000${number}\u0000${name}`)}`;

/**
 * Plans an import of the files at `paths` (normalized, relative): each is skipped with a reason,
 * a trace, or a document in a module group. XLA's files (`module_0042.jit_f.*`, and the
 * `module_0042.jit_f/` folder beside them) group by folder, number and name; a file JAX wrote
 * (`jax_ir0003_jit_f_compile.mlir`, `jax_000003_f.jaxpr.txt`) joins the XLA module of its name in
 * order, folder first: among the modules of its name, in this import or among `known` (module
 * groups the room already holds, so that files pushed later join them), only those nearest its
 * folder count (`run_a/jax/` goes with `run_a/xla/`, not `run_b/xla/`), and the k-th JAX file of
 * a name in a folder goes with the k-th of those by number; without one, the JAX files of a name
 * and ordinal form a group of their own. Pure.
 */
export function planImport(paths: readonly string[], known: readonly ModuleRef[] = []): FilePlan[] {
  const infos = paths.map((path) => ({ path, info: recognizeName(path) }));
  const modules = new Map<string, Module>();
  for (const m of known) {
    const info = recognizeName(m.path);
    const folder = info.what === 'document' && info.xla ? info.xla.folder : undefined;
    if (folder !== undefined && m.number !== undefined && !modules.has(m.groupId)) modules.set(m.groupId, { groupId: m.groupId, name: m.name, number: m.number, folder });
  }
  for (const { info } of infos) {
    if (info.what !== 'document' || !info.xla) continue;
    const groupId = moduleGroupId(info.xla.folder, info.xla.number, info.xla.name);
    if (!modules.has(groupId)) modules.set(groupId, { groupId, name: info.xla.name, number: info.xla.number, folder: info.xla.folder });
  }
  const jaxGroups = jaxModules(infos, [...modules.values()]);
  return infos.map(({ path, info }): FilePlan => {
    if (info.what !== 'document') return { path, ...info };
    const kind = info.kind !== undefined ? { kind: info.kind } : {};
    let module: Module | undefined;
    if (info.xla) module = modules.get(moduleGroupId(info.xla.folder, info.xla.number, info.xla.name));
    else if (info.jax) module = jaxGroups.get(path);
    if (!module) return { path, what: 'document', ...kind };
    const pass = info.xla?.pass;
    const ref: ModuleRef = {
      groupId: module.groupId, name: module.name, path,
      ...(module.number !== undefined ? { number: module.number } : {}),
      ...(pass ? { pass } : {}),
    };
    return { path, what: 'document', ...kind, module: ref };
  });
}

/** How many leading segments folders `a` and `b` share: `run_a/jax` and `run_a/xla` → 1, `run_a/jax` and `run_b/xla` → 0. */
function sharedSegments(a: string, b: string): number {
  const sa = a === '' ? [] : a.split('/');
  const sb = b === '' ? [] : b.split('/');
  let n = 0;
  while (n < sa.length && n < sb.length && sa[n] === sb[n]) n++;
  return n;
}

/**
 * The modules of `list` nearest `folder`: those sharing the most leading folder segments with it
 * (all of them when none shares any, as for `jax/` beside `xla/`), in `list`'s order.
 */
function nearest(list: readonly Module[], folder: string): Module[] {
  const depth = list.map((m) => sharedSegments(m.folder, folder));
  const best = Math.max(0, ...depth);
  return list.filter((_, i) => depth[i] === best);
}

/**
 * The module of each JAX file (by path): the k-th file of a kind and name in a folder goes with
 * the k-th module of that name among those nearest the folder (so two dump folders of one program
 * in one import keep their own layers).
 */
function jaxModules(infos: readonly { path: string; info: NameInfo }[], modules: readonly Module[]): Map<string, Module> {
  const byName = new Map<string, Module[]>();
  for (const m of [...modules].sort((a, b) => (a.number ?? 0) - (b.number ?? 0) || a.folder.localeCompare(b.folder))) {
    const list = byName.get(m.name) ?? [];
    list.push(m);
    byName.set(m.name, list);
  }
  // One list per (folder, kind, module name), in JAX's counter order.
  const series = new Map<string, { path: string; counter: number; module: string; folder: string }[]>();
  for (const { path, info } of infos) {
    if (info.what !== 'document' || !info.jax) continue;
    const key = `${info.jax.folder}\u0000${info.kind}\u0000${info.jax.module}`;
    const list = series.get(key) ?? [];
    list.push({ path, ...info.jax });
    series.set(key, list);
  }
  const out = new Map<string, Module>();
  for (const list of series.values()) {
    list.sort((a, b) => a.counter - b.counter);
    const first = list[0]!;
    const candidates = nearest(byName.get(first.module) ?? [], first.folder);
    list.forEach((f, k) => {
      out.set(f.path, candidates[k] ?? { groupId: `j${hashId(`${f.folder}\u0000${f.module}\u0000${k}`)}`, name: f.module, folder: f.folder });
    });
  }
  return out;
}
