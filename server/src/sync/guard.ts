import * as Y from 'yjs';
import { mayWrite, type Role } from '@seam/shared/model';
import { RefusalCode } from '@seam/shared/protocol';
import { isLocked } from '../room-lock';
import { MalformedUpdate, readUpdateHeaders, StructKind, type StructHeader, type StructId, type UpdateHeaders } from './update-headers';

/**
 * The verdict on one incoming update. `noop` updates carry nothing new for this document; `update`
 * is what to apply, store and relay: the update itself, or, when it repeats structs the document
 * already holds, the update without them (a peer that lacks them must get them from the server's
 * own copy, never from a repeat whose content nobody checked).
 */
export type Verdict =
  | { readonly ok: true; readonly noop: boolean; readonly clients: readonly number[]; readonly update: Uint8Array }
  | { readonly ok: false; readonly reason: RefusalCode };

/** Sentinel root for content whose parent the document has garbage-collected: it integrates as garbage. */
const GARBAGE = '\0gc';

/** The root key of an integrated item, or undefined when it cannot be found. */
export function rootOfIntegrated(item: Y.Item): string | undefined {
  let type = item.parent as Y.AbstractType<unknown> | null;
  while (type?._item) type = type._item.parent as Y.AbstractType<unknown> | null;
  if (!type) return undefined;
  try {
    return Y.findRootTypeKey(type);
  } catch {
    return undefined;
  }
}

/** A refusal, for the passes below. */
class Refusal {
  constructor(readonly reason: RefusalCode) {}
}

/**
 * The update's new structs and where they hang. Yjs integrates a struct once every struct it names
 * (origin, right origin, parent) and every earlier struct of its client is in; a struct that
 * waits for something that never comes stays pending inside the document, outside every check.
 * So each name must point into the document or to a new struct of the update, a client's own
 * names must point below the struct itself, and the names must not go round in a cycle. The
 * roots are found in dependency order, without recursion. A class, not closures made per call:
 * the server runs through tsx, which names every nested function at each call (`__name`).
 */
class FreshStructs {
  /** The update's new structs by client, in clock order. */
  private readonly byClient = new Map<number, StructHeader[]>();
  /** Each new struct's predecessor of the same client in the update. */
  private readonly previous = new Map<StructHeader, StructHeader>();
  /** Roots found so far (undefined: the parent cannot be found). */
  private readonly roots = new Map<StructHeader, string | undefined>();

  constructor(
    private readonly store: Y.Doc['store'],
    private readonly fresh: readonly StructHeader[],
  ) {
    for (const s of fresh) {
      const list = this.byClient.get(s.id.client);
      if (!list) {
        this.byClient.set(s.id.client, [s]);
        continue;
      }
      this.previous.set(s, list.at(-1) as StructHeader);
      list.push(s);
    }
  }

  /** The clients that made the new structs. */
  clients(): number[] {
    return [...this.byClient.keys()];
  }

  /** The clock after the update's new structs of `client`, or undefined when it has none. */
  end(client: number): number | undefined {
    const last = this.byClient.get(client)?.at(-1);
    return last ? last.id.clock + last.length : undefined;
  }

  /** The root key of every new struct (`GARBAGE` for what integrates as garbage), or a refusal. */
  findRoots(): Set<string> | Refusal {
    for (const start of this.fresh) {
      if (this.roots.has(start)) continue;
      const refused = this.walk(start);
      if (refused) return refused;
    }
    const roots = new Set<string>();
    for (const s of this.fresh) {
      const root = this.roots.get(s);
      if (root === undefined) return new Refusal(RefusalCode.unknownParent);
      roots.add(root);
      if (s.kind !== StructKind.item) continue;
      // Yjs hangs an item by one name but links it between both origins: the other names count too.
      for (const id of [s.origin, s.rightOrigin]) {
        if (!id) continue;
        const named = this.rootOfId(id);
        if (named === undefined) return new Refusal(RefusalCode.unknownParent);
        roots.add(named);
      }
    }
    return roots;
  }

  /** Finds the roots of `start` and of what it waits for, depth first; a cycle is a refusal. */
  private walk(start: StructHeader): Refusal | undefined {
    const first = this.dependencies(start);
    if (first instanceof Refusal) return first;
    const open = new Set<StructHeader>([start]);
    const stack: [StructHeader, StructHeader[]][] = [[start, first]];
    while (stack.length > 0) {
      const [s, deps] = stack[stack.length - 1] as [StructHeader, StructHeader[]];
      const next = deps.pop();
      if (next === undefined) {
        stack.pop();
        open.delete(s);
        this.roots.set(s, this.rootOf(s));
      } else if (open.has(next)) {
        return new Refusal(RefusalCode.unknownParent);
      } else if (!this.roots.has(next)) {
        const nextDeps = this.dependencies(next);
        if (nextDeps instanceof Refusal) return nextDeps;
        open.add(next);
        stack.push([next, nextDeps]);
      }
    }
    return undefined;
  }

  /** The new structs `s` waits for, or a refusal when it names what neither side holds. */
  private dependencies(s: StructHeader): StructHeader[] | Refusal {
    const before = this.previous.get(s);
    const deps: StructHeader[] = before ? [before] : [];
    if (s.kind !== StructKind.item) return deps;
    for (const id of [s.origin, s.rightOrigin, typeof s.parent === 'string' ? null : s.parent]) {
      if (!id) continue;
      if (id.client === s.id.client) {
        // Yjs looks a client's own names up without waiting: they must be below the struct.
        if (id.clock >= s.id.clock) return new Refusal(RefusalCode.unknownParent);
        continue;
      }
      if (id.clock < Y.getState(this.store, id.client)) continue;
      const named = this.findFresh(id);
      if (!named) return new Refusal(RefusalCode.unknownParent);
      deps.push(named);
    }
    return deps;
  }

  /** The root of `s`, once the new structs it names have theirs; as Yjs does, parent first, then origins. */
  private rootOf(s: StructHeader): string | undefined {
    if (s.kind === StructKind.gc) return GARBAGE;
    if (s.kind !== StructKind.item) return undefined;
    if (typeof s.parent === 'string') return s.parent;
    const id = s.parent ?? s.origin ?? s.rightOrigin;
    return id ? this.rootOfId(id) : undefined;
  }

  /** The root of the struct with `id`, in the document or (its root found) in the update. */
  private rootOfId(id: StructId): string | undefined {
    if (id.clock < Y.getState(this.store, id.client)) {
      const named = Y.getItem(this.store, Y.createID(id.client, id.clock)) as Y.Item | Y.GC;
      return named instanceof Y.GC ? GARBAGE : rootOfIntegrated(named);
    }
    const named = this.findFresh(id);
    return named ? this.roots.get(named) : undefined;
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
 * Splits the structs into those the document already holds (`stale`) and new ones, each client's
 * new structs starting exactly at the document's clock for it. A struct that starts below that
 * clock and ends above it is refused: Yjs would integrate only its unseen tail, after the item the
 * document holds at the clock before (which may hang anywhere), not where the struct says. Throws
 * `MalformedUpdate` when a client's structs come in two groups (Yjs would read only the last).
 */
function freshStructs(store: Y.Doc['store'], structs: readonly StructHeader[]): { fresh: StructHeader[]; stale: boolean } | Refusal {
  const fresh: StructHeader[] = [];
  const next = new Map<number, number>();
  const groups = new Set<number>();
  let stale = false;
  let group: number | undefined;
  for (const s of structs) {
    const client = s.id.client;
    if (client !== group) {
      if (groups.has(client)) throw new MalformedUpdate(`client ${client} has two groups of structs`);
      groups.add(client);
      group = client;
    }
    const state = Y.getState(store, client);
    if (s.id.clock + s.length <= state) {
      stale = true;
      continue;
    }
    if (s.kind === StructKind.skip) return new Refusal(RefusalCode.gap);
    if (s.id.clock < state) return new Refusal(RefusalCode.clockOverlap);
    if (s.id.clock !== (next.get(client) ?? state)) return new Refusal(RefusalCode.gap);
    next.set(client, s.id.clock + s.length);
    fresh.push(s);
  }
  return { fresh, stale };
}

/**
 * Decides whether a connection with `role` may apply `update` to `doc`: finds the root key of every
 * new struct (by parent name, parent ID or origin, within the document or the update itself) and of
 * every live item it deletes, and refuses the whole update if any key is not writable by the role,
 * if a struct straddles the document's clock for its client (`clock-overlap`), if anything it
 * names is missing or waits in a cycle (`unknown-parent`), if it deletes clocks that would not
 * exist after it, or if it depends on structs the document lacks (`gap`). Reads only the structs'
 * headers (`readUpdateHeaders`), not their content. Throws when the update cannot be decoded: the
 * caller treats that as a malformed message. `headers` are the update's, when already read.
 */
export function checkUpdate(doc: Y.Doc, update: Uint8Array, role: Role, headers: UpdateHeaders = readUpdateHeaders(update)): Verdict {
  const { structs, ds } = headers;
  const store = doc.store;
  const split = freshStructs(store, structs);
  if (split instanceof Refusal) return { ok: false, reason: split.reason };
  const finder = new FreshStructs(store, split.fresh);
  const roots = finder.findRoots();
  if (roots instanceof Refusal) return { ok: false, reason: roots.reason };
  const locked = isLocked(doc);

  let deletes = false;
  for (const [client, ranges] of ds) {
    const state = Y.getState(store, client);
    // Deletes of clocks nobody holds would wait in the document and delete whatever comes there.
    const limit = finder.end(client) ?? state;
    const structsOf = store.clients.get(client);
    for (const { clock, len } of ranges) {
      const end = clock + len;
      if (end > limit) return { ok: false, reason: RefusalCode.unknownParent };
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

  const noop = split.fresh.length === 0 && !deletes;
  if (noop) return { ok: true, noop, clients: [], update };
  if (role === 'viewer') return { ok: false, reason: RefusalCode.viewer };
  for (const root of roots) {
    if (root === GARBAGE || mayWrite(role, root, locked)) continue;
    return { ok: false, reason: locked && mayWrite(role, root, false) ? RefusalCode.locked : RefusalCode.forbiddenKey };
  }
  const applied = split.stale ? Y.diffUpdate(update, Y.encodeStateVector(doc)) : update;
  return { ok: true, noop, clients: finder.clients(), update: applied };
}
