import type Database from 'better-sqlite3';
import type { DocumentKind, DocumentMeta } from '@seam/shared/model';

interface DocumentRow {
  id: string;
  sha256: string;
  title: string;
  kind: string;
  bytes: number;
  created_at: number;
}

const toMeta = (r: DocumentRow): DocumentMeta => ({
  id: r.id, title: r.title, kind: r.kind as DocumentKind, bytes: r.bytes, sha256: r.sha256, createdAt: r.created_at,
});

/**
 * Dumps: content-addressed blobs (gzip of the text and of the analysis JSON, stored once across
 * rooms) and the per-room documents that point at them.
 */
export class DocumentsStore {
  private readonly insertBlob;
  private readonly hasBlobStmt;
  private readonly insertDoc;
  private readonly listStmt;
  private readonly getStmt;
  private readonly blobStmt;
  private readonly analysisStmt;

  constructor(private readonly db: Database.Database) {
    this.insertBlob = db.prepare('INSERT OR IGNORE INTO blobs (sha256, bytes, gzip, analysis_gzip) VALUES (?, ?, ?, ?)');
    this.hasBlobStmt = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM blobs WHERE sha256 = ?');
    this.insertDoc = db.prepare('INSERT INTO documents (id, room_id, sha256, title, kind, bytes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.listStmt = db.prepare<[string], DocumentRow>('SELECT id, sha256, title, kind, bytes, created_at FROM documents WHERE room_id = ? ORDER BY created_at, id');
    this.getStmt = db.prepare<[string, string], DocumentRow>('SELECT id, sha256, title, kind, bytes, created_at FROM documents WHERE room_id = ? AND id = ?');
    this.blobStmt = db.prepare<[string], { gzip: Buffer }>('SELECT gzip FROM blobs WHERE sha256 = ?');
    this.analysisStmt = db.prepare<[string], { analysis_gzip: Buffer }>('SELECT analysis_gzip FROM blobs WHERE sha256 = ?');
  }

  hasBlob(sha256: string): boolean {
    return this.hasBlobStmt.get(sha256) !== undefined;
  }

  /** Stores the blob unless that content is already stored, and the document row, in one transaction. */
  add(roomId: string, meta: DocumentMeta, blob: { gzip: Uint8Array; analysisGzip: Uint8Array } | undefined): void {
    this.db.transaction(() => {
      if (blob) this.insertBlob.run(meta.sha256, meta.bytes, blob.gzip, blob.analysisGzip);
      this.insertDoc.run(meta.id, roomId, meta.sha256, meta.title, meta.kind, meta.bytes, meta.createdAt);
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
}
