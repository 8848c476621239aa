import type { OpTime } from '@seam/shared/ir';
import type { DocumentKind } from '@seam/shared/model';
import type { DiffDigest } from './diff-digest';

/** A diff for the diff worker to make; answered once under its `id`. */
export interface DiffRequest {
  readonly id: number;
  readonly a: string;
  readonly b: string;
  readonly kindA: DocumentKind;
  readonly kindB: DocumentKind;
  /** The documents' titles, for the Markdown. */
  readonly names: { readonly a: string; readonly b: string };
  readonly opTimes?: { readonly a: readonly OpTime[]; readonly b: readonly OpTime[] };
}

/** The diff worker's answer: the digest the page keeps (see `DiffDigest`), or why there is none. */
export type DiffReply = { readonly id: number; readonly ok: true; readonly digest: DiffDigest } | { readonly id: number; readonly ok: false; readonly message: string };
