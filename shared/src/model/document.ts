/**
 * What a stored dump is. `hlo` is HLO before optimization, `hlo-opt` after; `buffer-assignment`
 * and `memory-report` are XLA's `*.buffer-assignment.txt` and `*.memory-usage-report.txt`.
 */
export const DocumentKind = {
  jaxpr: 'jaxpr',
  stablehlo: 'stablehlo',
  hlo: 'hlo',
  hloOpt: 'hlo-opt',
  trace: 'trace',
  bufferAssignment: 'buffer-assignment',
  memoryReport: 'memory-report',
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
  /**
   * Module group the dump belongs to, when it came from an XLA dump folder, archive or push: one
   * jit module's layers, buffer assignment, memory report and pass dumps share it.
   */
  readonly module?: ModuleRef;
}

/** Where a dump sits in an XLA dump folder's module group. */
export interface ModuleRef {
  /** Stable id of the group within the room (same module, same import → same id). */
  readonly groupId: string;
  /** The jit module's name, e.g. `jit_train_step`. */
  readonly name: string;
  /** XLA's module number (`module_0042` → 42), when the file name carries one. */
  readonly number?: number;
  /** Path of the file inside the folder or archive it came from. */
  readonly path: string;
  /** For a per-pass dump (`--xla_dump_hlo_pass_re`): its position and the pass it follows. */
  readonly pass?: { readonly index: number; readonly pipeline?: string; readonly name: string; readonly when: 'before' | 'after' };
}
