import type { ModuleDiff, OpTime } from '@seam/shared/ir';
import type { DocumentKind } from '@seam/shared/model';

/** A diff for the diff worker to make; answered once under its `id`. */
export interface DiffRequest {
  readonly id: number;
  readonly a: string;
  readonly b: string;
  readonly kindA: DocumentKind;
  readonly kindB: DocumentKind;
  readonly opTimes?: { readonly a: readonly OpTime[]; readonly b: readonly OpTime[] };
}

/** The diff worker's answer. */
export type DiffReply = { readonly id: number; readonly ok: true; readonly diff: ModuleDiff } | { readonly id: number; readonly ok: false; readonly message: string };
