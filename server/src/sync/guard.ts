import * as Y from 'yjs';
import { mayWrite, SettingKey, RoomKey, type Role } from '@seam/shared/model';
import { RefusalCode } from '@seam/shared/protocol';
import { readUpdateHeaders, StructKind, type StructHeader, type StructId } from './update-headers';

/** The verdict on one incoming update. `noop` updates carry nothing new for this document. */
export type Verdict =
  | { readonly ok: true; readonly noop: boolean; readonly clients: readonly number[] }
  | { readonly ok: false; readonly reason: RefusalCode };

/** Sentinel root for content whose parent the document has garbage-collected: it integrates as garbage. */
const GARBAGE = '\0gc';

/** The root key of an integrated item of `doc`, or undefined when it cannot be found. */
function rootOfIntegrated(item: Y.Item): string | undefined {
  let type = item.parent as Y.AbstractType<unknown> | null;
  while (type?._item) type = type._item.parent as Y.AbstractType<unknown> | null;
  if (!type) return undefined;
  try {
    return Y.findRootTypeKey(type);
  } catch {
    return undefined;
  }
}

/**
 * Finds the root key new structs hang under, within the document or the update itself. A class,
 * not closures made per call: the server runs through tsx, which names every nested function at
 * each call (`__name`), a quarter of the guard's time.
 */
class RootFinder {
  /** The update's new structs by client, in clock order. */
  private readonly byClient = new Map<number, StructHeader[]>();
  private readonly memo = new Map<StructHeader, string | undefined>();

  constructor(
    private readonly store: Y.Doc['store'],
    fresh: readonly StructHeader[],
  ) {
    for (const s of fresh) {
      const list = this.byClient.get(s.id.client);
      if (list) list.push(s);
      else this.byClient.set(s.id.client, [s]);
    }
  }

  /** The clients that made the new structs. */
  clients(): number[] {
    return [...this.byClient.keys()];
  }

  /** Whether the update has new structs of `client`. */
  hasClient(client: number): boolean {
    return this.byClient.has(client);
  }

  /** The root key of a new struct, or undefined when its parent cannot be found. */
  rootOf(s: StructHeader, depth: number): string | undefined {
    if (this.memo.has(s)) return this.memo.get(s);
    if (depth > 10_000) return undefined;
    let root: string | undefined;
    if (s.kind === StructKind.gc) root = GARBAGE;
    else if (s.kind === StructKind.item) {
      const parent = s.parent;
      if (typeof parent === 'string') root = parent;
      else if (parent) root = this.rootOfId(parent, depth);
      else if (s.origin) root = this.rootOfId(s.origin, depth);
      else if (s.rightOrigin) root = this.rootOfId(s.rightOrigin, depth);
    }
    this.memo.set(s, root);
    return root;
  }

  private rootOfId(id: StructId, depth: number): string | undefined {
    if (id.clock < Y.getState(this.store, id.client)) {
      const s = Y.getItem(this.store, Y.createID(id.client, id.clock)) as Y.Item | Y.GC;
      return s instanceof Y.GC ? GARBAGE : rootOfIntegrated(s);
    }
    const s = this.findFresh(id);
    return s ? this.rootOf(s, depth + 1) : undefined;
  }

  private findFresh(id: StructId): StructHeader | undefined {
    const list = this.byClient.get(id.client);
    if (!list) return undefined;
    let lo = 0;
    let hi = list.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const s = list[mid] as StructHeader;
      if (id.clock < s.id.clock) hi = mid - 1;
      else if (id.clock >= s.id.clock + s.length) lo = mid + 1;
      else return s;
    }
    return undefined;
  }
}

/**
 * Decides whether a connection with `role` may apply `update` to `doc`: finds the root key of every
 * new struct (by parent name, parent ID or origin, within the document or the update itself) and of
 * every live item it deletes, and refuses the whole update if any key is not writable by the role,
 * if a parent is unknown, or if it depends on structs the document lacks (a gap). Reads only the
 * structs' headers (`readUpdateHeaders`), not their content. Throws when the update cannot be
 * decoded: the caller treats that as a malformed message.
 */
export function checkUpdate(doc: Y.Doc, update: Uint8Array, role: Role): Verdict {
  const { structs, ds } = readUpdateHeaders(update);
  const store = doc.store;
  const fresh: StructHeader[] = [];
  for (const s of structs) {
    const state = Y.getState(store, s.id.client);
    if (s.id.clock + s.length <= state) continue;
    if (s.kind === StructKind.skip) return { ok: false, reason: RefusalCode.gap };
    const prev = fresh.at(-1);
    const contiguous = prev && prev.id.client === s.id.client ? prev.id.clock + prev.length === s.id.clock : s.id.clock <= state;
    if (!contiguous) return { ok: false, reason: RefusalCode.gap };
    fresh.push(s);
  }
  const finder = new RootFinder(store, fresh);
  const locked = doc.getMap(RoomKey.settings).get(SettingKey.locked) === true;
  const roots = new Set<string>();
  for (const s of fresh) {
    const root = finder.rootOf(s, 0);
    if (root === undefined) return { ok: false, reason: RefusalCode.unknownParent };
    roots.add(root);
  }

  let deletes = false;
  for (const [client, ranges] of ds) {
    const state = Y.getState(store, client);
    const structsOf = store.clients.get(client);
    for (const { clock, len } of ranges) {
      const end = clock + len;
      if (end > state && !finder.hasClient(client)) return { ok: false, reason: RefusalCode.unknownParent };
      if (!structsOf || clock >= state) continue;
      for (let i = Y.findIndexSS(structsOf, clock); i < structsOf.length; i++) {
        const s = structsOf[i] as Y.Item | Y.GC;
        if (s.id.clock >= end) break;
        if (s instanceof Y.GC || s.deleted) continue;
        const root = rootOfIntegrated(s);
        if (root === undefined) return { ok: false, reason: RefusalCode.unknownParent };
        roots.add(root);
        deletes = true;
      }
    }
  }

  const noop = fresh.length === 0 && !deletes;
  if (noop) return { ok: true, noop, clients: [] };
  if (role === 'viewer') return { ok: false, reason: RefusalCode.viewer };
  for (const root of roots) {
    if (root === GARBAGE || mayWrite(role, root, locked)) continue;
    return { ok: false, reason: locked && mayWrite(role, root, false) ? RefusalCode.locked : RefusalCode.forbiddenKey };
  }
  return { ok: true, noop, clients: finder.clients() };
}
