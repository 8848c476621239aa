/** What a stored dump is. `hlo` is HLO before optimization, `hlo-opt` after. */
export const DocumentKind = {
  jaxpr: 'jaxpr',
  stablehlo: 'stablehlo',
  hlo: 'hlo',
  hloOpt: 'hlo-opt',
  trace: 'trace',
  text: 'text',
} as const;
export type DocumentKind = (typeof DocumentKind)[keyof typeof DocumentKind];
export const DOCUMENT_KINDS: readonly DocumentKind[] = Object.values(DocumentKind);

/** A dump in a room, as listed by the API and in the room document's server-written `documents` map. */
export interface DocumentMeta {
  readonly id: string;
  readonly title: string;
  readonly kind: DocumentKind;
  readonly bytes: number;
  readonly sha256: string;
  readonly createdAt: number;
  /** Display name of whoever added it, or `runner:<name>` for captures. */
  readonly addedBy?: string;
  /** Capture group (job id) the dump belongs to, when it came from a runner. */
  readonly captureId?: string;
}
