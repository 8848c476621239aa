import * as encoding from 'lib0/encoding';
import { StructKind, type DeleteRanges, type StructId } from './update-headers';

/**
 * One struct to write, any header a v1 update can carry, including ones no Yjs client would make:
 * a GC or skip of `length` clocks, or an item holding `content` (lib0 `any` values, one clock
 * each) under the given names. An item needs a parent when it has neither origin.
 */
export type StructSpec =
  | { readonly kind: typeof StructKind.gc | typeof StructKind.skip; readonly id: StructId; readonly length: number }
  | {
      readonly kind: typeof StructKind.item;
      readonly id: StructId;
      readonly origin?: StructId | null;
      readonly rightOrigin?: StructId | null;
      readonly parent?: string | StructId | null;
      readonly parentSub?: string | null;
      readonly content: readonly unknown[];
    };

const BIT6 = 32;
const BIT7 = 64;
const BIT8 = 128;
const CONTENT_ANY = 8;
const SKIP = 10;

function writeId(e: encoding.Encoder, id: StructId): void {
  encoding.writeVarUint(e, id.client);
  encoding.writeVarUint(e, id.clock);
}

function lengthOf(s: StructSpec): number {
  return s.kind === StructKind.item ? s.content.length : s.length;
}

function writeStruct(e: encoding.Encoder, s: StructSpec): void {
  if (s.kind !== StructKind.item) {
    encoding.writeUint8(e, s.kind === StructKind.gc ? 0 : SKIP);
    encoding.writeVarUint(e, s.length);
    return;
  }
  const origin = s.origin ?? null;
  const rightOrigin = s.rightOrigin ?? null;
  const parentSub = s.parentSub ?? null;
  encoding.writeUint8(e, CONTENT_ANY | (origin ? BIT8 : 0) | (rightOrigin ? BIT7 : 0) | (parentSub === null ? 0 : BIT6));
  if (origin) writeId(e, origin);
  if (rightOrigin) writeId(e, rightOrigin);
  if (!origin && !rightOrigin) {
    const parent = s.parent ?? null;
    if (parent === null) throw new RangeError(`item ${s.id.client}:${s.id.clock} has neither origin nor parent`);
    if (typeof parent === 'string') {
      encoding.writeVarUint(e, 1);
      encoding.writeVarString(e, parent);
    } else {
      encoding.writeVarUint(e, 0);
      writeId(e, parent);
    }
    if (parentSub !== null) encoding.writeVarString(e, parentSub);
  }
  encoding.writeVarUint(e, s.content.length);
  for (const value of s.content) encoding.writeAny(e, value as Parameters<typeof encoding.writeAny>[1]);
}

/**
 * Writes a Yjs v1 update from struct headers and a delete set, the inverse of `readUpdateHeaders`
 * (for items with `any` content): consecutive structs of one client form one group, whose clocks
 * must follow each other; a client that comes back after another makes a second group, which Yjs
 * itself never writes. Throws `RangeError` for a group whose clocks do not follow each other.
 */
export function writeUpdate(structs: readonly StructSpec[], ds: DeleteRanges = new Map()): Uint8Array {
  const groups: StructSpec[][] = [];
  for (const s of structs) {
    const group = groups.at(-1);
    const last = group?.at(-1);
    if (!group || !last || last.id.client !== s.id.client) {
      groups.push([s]);
      continue;
    }
    if (last.id.clock + lengthOf(last) !== s.id.clock) throw new RangeError(`struct ${s.id.client}:${s.id.clock} does not follow the one before`);
    group.push(s);
  }
  const e = encoding.createEncoder();
  encoding.writeVarUint(e, groups.length);
  for (const group of groups) {
    const first = group[0] as StructSpec;
    encoding.writeVarUint(e, group.length);
    writeId(e, first.id);
    for (const s of group) writeStruct(e, s);
  }
  encoding.writeVarUint(e, ds.size);
  for (const [client, ranges] of ds) {
    encoding.writeVarUint(e, client);
    encoding.writeVarUint(e, ranges.length);
    for (const r of ranges) {
      encoding.writeVarUint(e, r.clock);
      encoding.writeVarUint(e, r.len);
    }
  }
  return encoding.toUint8Array(e);
}
