import type Database from 'better-sqlite3';
import { ANALYSIS_PARTS_VERSION, type AnalysisPart } from '@seam/shared/ir';
import type { DocumentKind, DocumentMeta } from '@seam/shared/model';

/** A dump's stored bodies, gzipped: its text, its whole analysis, and (since they exist) the analysis parts. */
export interface StoredBlob {
  readonly gzip: Uint8Array;
  readonly analysisGzip: Uint8Array;
  readonly parts?: Readonly<Record<AnalysisPart, Uint8Array>>;
}

interface DocumentRow {
  id: string;
  sha256: string;
  title: string;
  kind: string;
  bytes: number;
  created_at: number;
  added_by: string | null;
  capture_id: string | null;
}

const toMeta = (r: DocumentRow): DocumentMeta => ({
  id: r.id, title: r.title, kind: r.kind as DocumentKind, bytes: r.bytes, sha256: r.sha256, createdAt: r.created_at,
  ...(r.added_by !== null ? { addedBy: r.added_by } : {}),
  ...(r.capture_id !== null ? { captureId: r.capture_id } : {}),
});

const COLUMNS = 'id, sha256, title, kind, bytes, created_at, added_by, capture_id';

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

  constructor(private readonly db: Database.Database) {
    this.insertBlob = db.prepare('INSERT OR IGNORE INTO blobs (sha256, bytes, gzip, analysis_gzip) VALUES (?, ?, ?, ?)');
    this.hasBlobStmt = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM blobs WHERE sha256 = ?');
    this.insertDoc = db.prepare(`INSERT INTO documents (room_id, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.listStmt = db.prepare<[string], DocumentRow>(`SELECT ${COLUMNS} FROM documents WHERE room_id = ? ORDER BY created_at, id`);
    this.getStmt = db.prepare<[string, string], DocumentRow>(`SELECT ${COLUMNS} FROM documents WHERE room_id = ? AND id = ?`);
    this.blobStmt = db.prepare<[string], { gzip: Buffer }>('SELECT gzip FROM blobs WHERE sha256 = ?');
    this.analysisStmt = db.prepare<[string], { analysis_gzip: Buffer }>('SELECT analysis_gzip FROM blobs WHERE sha256 = ?');
    this.partStmt = db.prepare<[string, string, number], { gzip: Buffer }>('SELECT gzip FROM analysis_parts WHERE sha256 = ? AND part = ? AND version = ?');
    this.putPart = db.prepare('INSERT OR REPLACE INTO analysis_parts (sha256, part, version, gzip) VALUES (?, ?, ?, ?)');
    this.usageStmt = db.prepare<[string], { documents: number; bytes: number }>('SELECT COUNT(*) AS documents, COALESCE(SUM(bytes), 0) AS bytes FROM documents WHERE room_id = ?');
  }

  /** How many documents a room holds and their dump bytes (uncompressed) in all. */
  usage(roomId: string): { documents: number; bytes: number } {
    return this.usageStmt.get(roomId) ?? { documents: 0, bytes: 0 };
  }

  hasBlob(sha256: string): boolean {
    return this.hasBlobStmt.get(sha256) !== undefined;
  }

  /** Stores the blob unless that content is already stored, and the document row, in one transaction. */
  add(roomId: string, meta: DocumentMeta, blob: StoredBlob | undefined): void {
    this.db.transaction(() => {
      if (blob && this.insertBlob.run(meta.sha256, meta.bytes, blob.gzip, blob.analysisGzip).changes > 0 && blob.parts) this.writeParts(meta.sha256, blob.parts);
      this.insertDoc.run(roomId, meta.id, meta.sha256, meta.title, meta.kind, meta.bytes, meta.createdAt, meta.addedBy ?? null, meta.captureId ?? null);
    })();
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
