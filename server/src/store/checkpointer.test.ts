import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SyncMode } from '../config';
import { openStore, type Store } from '.';

const walBytes = (dir: string): number => statSync(join(dir, 'seam.db-wal')).size;
/** An interval no test reaches: every round below is one the test asked for. */
const manual = { intervalMs: 3_600_000 };

let dir: string;
let store: Store | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'seam-ckpt-'));
});
afterEach(() => {
  store?.close();
  store = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** Appends `mb` MiB of 1 KiB updates to room `r`, 64 per transaction. */
function write(s: Store, mb: number): void {
  const update = new Uint8Array(1024).fill(7);
  for (let i = 0; i < mb * 16; i += 1) s.updates.append('r', Array<Uint8Array>(64).fill(update));
}

describe('Checkpointer', () => {
  it('leaves checkpoints to the worker: the main connection never checkpoints by itself', () => {
    store = openStore(dir, SyncMode.normal, { ...manual, maxWalBytes: 64 << 20 });
    expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    write(store, 8);
    // SQLite's default would have checkpointed and reused the WAL at 1,000 pages (about 4 MB).
    expect(walBytes(dir)).toBeGreaterThan(8 << 20);
  });

  it('keeps the WAL about as large as what is written between rounds, however much is written', async () => {
    store = openStore(dir, SyncMode.normal, { ...manual, maxWalBytes: 64 << 20 });
    const sizes: number[] = [];
    for (let round = 0; round < 10; round += 1) {
      write(store, 2);
      const r = await store.checkpoints.checkpoint();
      expect(r.busy).toBe(0);
      expect(r.checkpointed).toBe(r.log);
      sizes.push(walBytes(dir));
    }
    // 2 MiB of updates fill about 4 MB of WAL (pages of the table and its index); 20 MiB in all.
    expect(Math.max(...sizes)).toBeLessThan(6 << 20);
    expect(store.updates.load('r').updates.length).toBe(10 * 2 * 16 * 64);
  });

  it('truncates the WAL once it passes the size bound', async () => {
    store = openStore(dir, SyncMode.full, { ...manual, maxWalBytes: 1 << 20 });
    write(store, 3);
    const r = await store.checkpoints.checkpoint();
    expect(r.truncated).toBe(true);
    expect(r.walBytes).toBe(0);
    expect(walBytes(dir)).toBe(0);
    store.close();
    store = openStore(dir, SyncMode.full, { ...manual, maxWalBytes: 1 << 20 });
    expect(store.updates.load('r').updates.length).toBe(3 * 16 * 64);
  });

  it('checkpoints on its timer without being asked', async () => {
    store = openStore(dir, SyncMode.normal, { intervalMs: 20, maxWalBytes: 1 << 20 });
    write(store, 3);
    // Polls the file (no time bound): the rounds of the worker's timer truncate it.
    while (walBytes(dir) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(walBytes(dir)).toBe(0);
  });
});
