import * as decoding from 'lib0/decoding';

/** A struct ID: the client that made it and its clock. */
export interface StructId {
  readonly client: number;
  readonly clock: number;
}

/** Closed set of struct kinds in an update (the low five bits of the info byte say which). */
export const StructKind = { gc: 0, skip: 1, item: 2 } as const;
export type StructKind = (typeof StructKind)[keyof typeof StructKind];

/**
 * What the guard needs to know of one struct of an update: where it is (`id`, `length`) and where
 * it hangs (parent root name or parent ID, else its origins). The content itself is skipped.
 */
export interface StructHeader {
  readonly kind: StructKind;
  readonly id: StructId;
  readonly length: number;
  /** A root type's name, the ID of the parent type's item, or null when the origins say it. */
  readonly parent: string | StructId | null;
  readonly origin: StructId | null;
  readonly rightOrigin: StructId | null;
}

/** The delete set of an update: per client, the deleted clock ranges. */
export type DeleteRanges = Map<number, { clock: number; len: number }[]>;

/** Thrown for bytes that are not a Yjs v1 update. */
export class MalformedUpdate extends Error {
  override name = 'MalformedUpdate';
}

/** What `readUpdateHeaders` reads: the structs' headers and the delete set. */
export interface UpdateHeaders {
  readonly structs: StructHeader[];
  readonly ds: DeleteRanges;
}

/** Thrown by `readUpdateHeaders` once an update holds more structs plus deleted ranges than its `maxEntries`. */
export class TooManyItems extends Error {
  override name = 'TooManyItems';
  constructor(readonly max: number) {
    super(`the update holds more than ${max} structs and deleted ranges`);
  }
}

const BIT6 = 32;
const BIT7 = 64;
const BIT8 = 128;
const BITS5 = 31;
/** Content refs of Yjs items (`readItemContent`): deleted, JSON, binary, string, embed, format, type, any, doc. */
const ContentRef = { gc: 0, deleted: 1, json: 2, binary: 3, string: 4, embed: 5, format: 6, type: 7, any: 8, doc: 9, skip: 10 } as const;
/** Type refs whose content carries a name: XmlElement (3) and XmlHook (5). */
const NAMED_TYPES = new Set([3, 5]);

function readId(d: decoding.Decoder): StructId {
  return { client: decoding.readVarUint(d), clock: decoding.readVarUint(d) };
}

function readByte(d: decoding.Decoder): number {
  if (d.pos >= d.arr.length) throw new MalformedUpdate('update ends inside a struct');
  return decoding.readUint8(d);
}

function skipBytes(d: decoding.Decoder, n: number): void {
  if (d.pos + n > d.arr.length) throw new MalformedUpdate('content runs past the end');
  d.pos += n;
}

/**
 * Reads past one lib0 `any` value without building it (strings are not decoded): the type byte,
 * then 127 undefined, 126 null, 125 varint, 124 float32, 123 float64, 122 bigint64, 121 false,
 * 120 true, 119 string, 118 object, 117 array, 116 bytes.
 */
function skipAny(d: decoding.Decoder): void {
  const type = readByte(d);
  switch (type) {
    case 127: case 126: case 121: case 120:
      return;
    case 125:
      decoding.readVarInt(d);
      return;
    case 124:
      return skipBytes(d, 4);
    case 123: case 122:
      return skipBytes(d, 8);
    case 119: case 116:
      return skipBytes(d, decoding.readVarUint(d));
    case 118: {
      const n = decoding.readVarUint(d);
      for (let i = 0; i < n; i += 1) {
        skipBytes(d, decoding.readVarUint(d));
        skipAny(d);
      }
      return;
    }
    case 117: {
      const n = decoding.readVarUint(d);
      for (let i = 0; i < n; i += 1) skipAny(d);
      return;
    }
    default:
      throw new MalformedUpdate(`unknown value type ${type}`);
  }
}

/** Reads past an item's content and returns its length (what `readItemContent` would build). */
function skipContent(d: decoding.Decoder, ref: number): number {
  switch (ref) {
    case ContentRef.deleted:
      return decoding.readVarUint(d);
    case ContentRef.json: {
      const n = decoding.readVarUint(d);
      for (let i = 0; i < n; i += 1) decoding.readVarString(d);
      return n;
    }
    case ContentRef.binary:
      skipBytes(d, decoding.readVarUint(d));
      return 1;
    case ContentRef.string:
      return decoding.readVarString(d).length;
    case ContentRef.embed:
      decoding.readVarString(d);
      return 1;
    case ContentRef.format:
      decoding.readVarString(d);
      decoding.readVarString(d);
      return 1;
    case ContentRef.type:
      if (NAMED_TYPES.has(decoding.readVarUint(d))) decoding.readVarString(d);
      return 1;
    case ContentRef.any: {
      const n = decoding.readVarUint(d);
      for (let i = 0; i < n; i += 1) skipAny(d);
      return n;
    }
    case ContentRef.doc:
      decoding.readVarString(d);
      skipAny(d);
      return 1;
    default:
      throw new MalformedUpdate(`unknown content ref ${ref}`);
  }
}

/**
 * Reads the struct headers and the delete set of a v1 update in one pass, the way
 * `Y.decodeUpdate` reads them but without building items or their content: the guard looks at
 * every update before Yjs decodes it again to apply it. Throws for bytes that are not an update,
 * and `TooManyItems` as soon as it has read more than `maxEntries` structs and deleted ranges (so
 * that refusing a flood costs no more than reading the limit).
 */
export function readUpdateHeaders(update: Uint8Array, maxEntries = Infinity): UpdateHeaders {
  const d = decoding.createDecoder(update);
  const structs: StructHeader[] = [];
  const groups = decoding.readVarUint(d);
  for (let g = 0; g < groups; g += 1) {
    const count = decoding.readVarUint(d);
    const client = decoding.readVarUint(d);
    let clock = decoding.readVarUint(d);
    for (let i = 0; i < count; i += 1) {
      const info = readByte(d);
      const ref = info & BITS5;
      const id = { client, clock };
      let header: StructHeader;
      // As Yjs reads them: a skip is exactly info 10; any info with ref 0 is a GC.
      if (ref === ContentRef.gc || info === ContentRef.skip) {
        header = { kind: ref === ContentRef.gc ? StructKind.gc : StructKind.skip, id, length: decoding.readVarUint(d), parent: null, origin: null, rightOrigin: null };
      } else {
        const origin = (info & BIT8) === BIT8 ? readId(d) : null;
        const rightOrigin = (info & BIT7) === BIT7 ? readId(d) : null;
        const ownParent = (info & (BIT7 | BIT8)) === 0;
        const parent = ownParent ? (decoding.readVarUint(d) === 1 ? decoding.readVarString(d) : readId(d)) : null;
        if (ownParent && (info & BIT6) === BIT6) skipBytes(d, decoding.readVarUint(d));
        header = { kind: StructKind.item, id, length: skipContent(d, ref), parent, origin, rightOrigin };
      }
      if (structs.push(header) > maxEntries) throw new TooManyItems(maxEntries);
      clock += header.length;
    }
  }
  const ds: DeleteRanges = new Map();
  let entries = structs.length;
  const clients = decoding.readVarUint(d);
  for (let c = 0; c < clients; c += 1) {
    const client = decoding.readVarUint(d);
    const n = decoding.readVarUint(d);
    if (n === 0) continue;
    const ranges = ds.get(client) ?? [];
    entries += n;
    if (entries > maxEntries) throw new TooManyItems(maxEntries);
    for (let i = 0; i < n; i += 1) ranges.push({ clock: decoding.readVarUint(d), len: decoding.readVarUint(d) });
    ds.set(client, ranges);
  }
  // The room stores and relays an accepted update as it came: nothing may ride after its delete set.
  if (d.pos !== d.arr.length) throw new MalformedUpdate(`${d.arr.length - d.pos} bytes after the delete set`);
  return { structs, ds };
}
