import type Database from 'better-sqlite3';
import { ANALYSIS_PARTS_VERSION, type AnalysisPart } from '@seam/shared/ir';
import type { DocumentKind, DocumentMeta, ModuleRef } from '@seam/shared/model';

/** A dump's stored bodies, gzipped: its text, its whole analysis, and (since they exist) the analysis parts. */
export interface StoredBlob {
  readonly gzip: Uint8Array;
  readonly analysisGzip: Uint8Array;
  readonly parts?: Readonly<Record<AnalysisPart, Uint8Array>>;
}

/** A `documents` row as both backends read it. */
export interface DocumentRow {
  id: string;
  sha256: string;
  title: string;
  kind: string;
  bytes: number;
  created_at: number;
  added_by: string | null;
  capture_id: string | null;
  module_group: string | null;
  module_name: string | null;
  module_number: number | null;
  module_path: string | null;
  pass_index: number | null;
  pass_pipeline: string | null;
  pass_name: string | null;
  pass_when: string | null;
}

/** A row's module group, when it has one. */
export function moduleOf(r: DocumentRow): ModuleRef | undefined {
  if (r.module_group === null) return undefined;
  const pass = r.pass_index !== null
    ? { index: r.pass_index, ...(r.pass_pipeline !== null ? { pipeline: r.pass_pipeline } : {}), name: r.pass_name ?? '', when: r.pass_when === 'before' ? 'before' as const : 'after' as const }
    : undefined;
  return {
    groupId: r.module_group, name: r.module_name ?? '', path: r.module_path ?? '',
    ...(r.module_number !== null ? { number: r.module_number } : {}),
    ...(pass ? { pass } : {}),
  };
}

/** A `documents` row as the API's `DocumentMeta`. */
export const toMeta = (r: DocumentRow): DocumentMeta => {
  const module = moduleOf(r);
  return {
    id: r.id, title: r.title, kind: r.kind as DocumentKind, bytes: r.bytes, sha256: r.sha256, createdAt: r.created_at,
    ...(r.added_by !== null ? { addedBy: r.added_by } : {}),
    ...(r.capture_id !== null ? { captureId: r.capture_id } : {}),
    ...(module ? { module } : {}),
  };
};

/** The columns of a document after `room_id`, in the order `rowOf` gives their values. */
export const COLUMNS = 'id, sha256, title, kind, bytes, created_at, added_by, capture_id, module_group, module_name, module_number, module_path, pass_index, pass_pipeline, pass_name, pass_when';

/** The values of `COLUMNS` after `room_id` for one document; `path` is the file it came from when it is in no module group. */
export function rowOf(meta: DocumentMeta, path?: string): unknown[] {
  const m = meta.module;
  return [
    meta.id, meta.sha256, meta.title, meta.kind, meta.bytes, meta.createdAt, meta.addedBy ?? null, meta.captureId ?? null,
    m?.groupId ?? null, m?.name ?? null, m?.number ?? null, m?.path ?? path ?? null, m?.pass?.index ?? null, m?.pass?.pipeline ?? null, m?.pass?.name ?? null, m?.pass?.when ?? null,
  ];
}

/** How many documents a room holds, and their dump bytes (uncompressed) in all. */
export interface DocumentUsage {
  readonly documents: number;
  readonly bytes: number;
}

/** A check run inside the transaction that lists documents, given the room's usage there; it throws to list none. */
export type UsageCheck = (used: DocumentUsage) => void;

/**
 * Dumps: content-addressed blobs (gzip of the text and of the analysis JSON, stored once across
 * rooms), the analysis parts of each blob (`analysis_parts`, one row per part, of the
 * `ANALYSIS_PARTS_VERSION` they were written in), and the per-room documents that point at them,
 * with their provenance (`addedBy`, `captureId`) when a capture brought them.
 */
export class DocumentsStore {
  private readonly insertBlob;
  private readonly hasBlobStmt;
  private readonly insertDoc;
  private readonly listStmt;
  private readonly getStmt;
  private readonly blobStmt;
  private readonly analysisStmt;
  private readonly partStmt;
  private readonly putPart;
  private readonly usageStmt;
  private readonly samePathStmt;
  private readonly moduleRefsStmt;
  private readonly roomHasBlobStmt;
  private readonly deleteDoc;
  private readonly setPathStmt;

  constructor(private readonly db: Database.Database) {
    this.insertBlob = db.prepare('INSERT OR IGNORE INTO blobs (sha256, bytes, gzip, analysis_gzip) VALUES (?, ?, ?, ?)');
    this.hasBlobStmt = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM blobs WHERE sha256 = ?');
    this.insertDoc = db.prepare(`INSERT INTO documents (room_id, ${COLUMNS}) VALUES (?${', ?'.repeat(16)})`);
    this.listStmt = db.prepare<[string], DocumentRow>(`SELECT ${COLUMNS} FROM documents WHERE room_id = ? ORDER BY created_at, id`);
    this.getStmt = db.prepare<[string, string], DocumentRow>(`SELECT ${COLUMNS} FROM documents WHERE room_id = ? AND id = ?`);
    this.blobStmt = db.prepare<[string], { gzip: Buffer }>('SELECT gzip FROM blobs WHERE sha256 = ?');
    this.analysisStmt = db.prepare<[string], { analysis_gzip: Buffer }>('SELECT analysis_gzip FROM blobs WHERE sha256 = ?');
    this.partStmt = db.prepare<[string, string, number], { gzip: Buffer }>('SELECT gzip FROM analysis_parts WHERE sha256 = ? AND part = ? AND version = ?');
    this.putPart = db.prepare('INSERT OR REPLACE INTO analysis_parts (sha256, part, version, gzip) VALUES (?, ?, ?, ?)');
    this.usageStmt = db.prepare<[string], { documents: number; bytes: number }>('SELECT COUNT(*) AS documents, COALESCE(SUM(bytes), 0) AS bytes FROM documents WHERE room_id = ?');
    this.samePathStmt = db.prepare<[string, string, string, string], { one: number }>('SELECT 1 AS one FROM documents WHERE room_id = ? AND module_path = ? AND (sha256 = ? OR file_sha256 = ?) LIMIT 1');
    this.moduleRefsStmt = db.prepare<[string], DocumentRow>(`SELECT ${COLUMNS} FROM documents WHERE room_id = ? AND module_group IS NOT NULL AND pass_index IS NULL`);
    this.roomHasBlobStmt = db.prepare<[string, string], { one: number }>('SELECT 1 AS one FROM documents WHERE room_id = ? AND sha256 = ? LIMIT 1');
    this.deleteDoc = db.prepare('DELETE FROM documents WHERE room_id = ? AND id = ?');
    this.setPathStmt = db.prepare('UPDATE documents SET module_path = ?, file_sha256 = ? WHERE room_id = ? AND id = ? AND module_group IS NULL');
  }

  /** How many documents a room holds and their dump bytes (uncompressed) in all. */
  usage(roomId: string): DocumentUsage {
    return this.usageStmt.get(roomId) ?? { documents: 0, bytes: 0 };
  }

  hasBlob(sha256: string): boolean {
    return this.hasBlobStmt.get(sha256) !== undefined;
  }

  /**
   * Stores the blob unless that content is already stored, and the document row, in one
   * transaction, after `check` passes inside it with the room's usage as it is there (a quota,
   * exact however many add at once).
   */
  add(roomId: string, meta: DocumentMeta, blob: StoredBlob | undefined, check?: UsageCheck): void {
    this.db.transaction(() => {
      check?.(this.usage(roomId));
      if (blob && this.insertBlob.run(meta.sha256, meta.bytes, blob.gzip, blob.analysisGzip).changes > 0 && blob.parts) this.writeParts(meta.sha256, blob.parts);
      this.insertDoc.run(roomId, ...rowOf(meta));
    })();
  }

  /** Stores a blob unless that content is already stored, in a transaction of its own; the documents that use it come later. */
  putBlob(sha256: string, bytes: number, blob: StoredBlob): void {
    this.db.transaction(() => {
      if (this.insertBlob.run(sha256, bytes, blob.gzip, blob.analysisGzip).changes > 0 && blob.parts) this.writeParts(sha256, blob.parts);
    })();
  }

  /**
   * Lists documents whose blobs are stored already, all in one transaction (all or none), after
   * `check` passes inside it with the room's usage as it is there. `path` is the imported file a
   * document outside a module group came from.
   */
  addAll(roomId: string, docs: readonly { readonly meta: DocumentMeta; readonly path?: string | undefined }[], check?: UsageCheck): void {
    this.db.transaction(() => {
      check?.(this.usage(roomId));
      for (const { meta, path } of docs) this.insertDoc.run(roomId, ...rowOf(meta, path));
    })();
  }

  /**
   * Records the imported file a document outside a module group came from (a trace, stored by the
   * trace ingest): its path, and the file's sha256 when it is not the document's (a gzipped trace).
   */
  setPath(roomId: string, id: string, path: string, fileSha256?: string): void {
    this.setPathStmt.run(path, fileSha256 ?? null, roomId, id);
  }

  /** Takes a document out of a room's list (its blob stays, as content may be shared). */
  remove(roomId: string, id: string): void {
    this.deleteDoc.run(roomId, id);
  }

  /** Whether the room holds a file from an import at `path` with these bytes (the document's, or the file's it was read from). */
  hasFile(roomId: string, path: string, sha256: string): boolean {
    return this.samePathStmt.get(roomId, path, sha256, sha256) !== undefined;
  }

  /** Whether some document of the room has these bytes (a room may read its own blobs, and no other room's). */
  roomHasBlob(roomId: string, sha256: string): boolean {
    return this.roomHasBlobStmt.get(roomId, sha256) !== undefined;
  }

  /** The `ModuleRef` of every document of the room in a module group, but pass dumps. */
  moduleRefs(roomId: string): ModuleRef[] {
    return this.moduleRefsStmt.all(roomId).map(moduleOf).filter((m): m is ModuleRef => m !== undefined);
  }

  list(roomId: string): DocumentMeta[] {
    return this.listStmt.all(roomId).map(toMeta);
  }

  get(roomId: string, id: string): DocumentMeta | undefined {
    const r = this.getStmt.get(roomId, id);
    return r && toMeta(r);
  }

  /** The gzip-compressed text of a blob. */
  textGzip(sha256: string): Buffer | undefined {
    return this.blobStmt.get(sha256)?.gzip;
  }

  /** The gzip-compressed analysis JSON of a blob. */
  analysisGzip(sha256: string): Buffer | undefined {
    return this.analysisStmt.get(sha256)?.analysis_gzip;
  }

  /** The gzip-compressed JSON of one analysis part of a blob, if stored in the current version. */
  analysisPartGzip(sha256: string, part: AnalysisPart): Buffer | undefined {
    return this.partStmt.get(sha256, part, ANALYSIS_PARTS_VERSION)?.gzip;
  }

  /** Stores (or replaces) the analysis parts of a stored blob, in the current version, in one transaction. */
  putAnalysisParts(sha256: string, parts: Readonly<Record<AnalysisPart, Uint8Array>>): void {
    this.db.transaction(() => this.writeParts(sha256, parts))();
  }

  private writeParts(sha256: string, parts: Readonly<Record<AnalysisPart, Uint8Array>>): void {
    for (const [part, gz] of Object.entries(parts)) this.putPart.run(sha256, part, ANALYSIS_PARTS_VERSION, gz);
  }
}
