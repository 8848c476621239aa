import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SyncMode } from '../config';
import { openDatabase } from './db';

describe('openDatabase', () => {
  it.each([
    [SyncMode.normal, 1],
    [SyncMode.full, 2],
  ])('opens WAL with synchronous=%s', (mode, level) => {
    const dir = mkdtempSync(join(tmpdir(), 'seam-db-'));
    try {
      const db = openDatabase(join(dir, 'nested'), mode);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('synchronous', { simple: true })).toBe(level);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
