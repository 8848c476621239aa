import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SyncMode } from '../config';
import { openStore, type Store } from '.';
import { CATCH_UP_ROUNDS, checkpointRound, type CheckpointAnswer } from './checkpointer';

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
    // 2 MiB of updates fill about 8 MB of WAL (pages of the log and of the replay history, each a
    // table and its index); 20 MiB in all.
    expect(Math.max(...sizes)).toBeLessThan(10 << 20);
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

  describe('a round', () => {
    /**
     * SQLite's answers to a round's passive checkpoints, in order (the last one repeats): what a
     * round sees when commits land while it copies, which a test cannot time against the worker.
     */
    const connection = (answers: Array<[log: number, checkpointed: number]>, walBytes = 0) => {
      const asked: string[] = [];
      const answer = ([log, checkpointed]: [number, number]): CheckpointAnswer => ({ busy: 0, log, checkpointed });
      return {
        asked,
        passive: () => {
          asked.push('passive');
          return answer(answers[Math.min(asked.length - 1, answers.length - 1)] ?? [0, 0]);
        },
        truncate: () => {
          asked.push('truncate');
          return answer([0, 0]);
        },
        walBytes: () => walBytes,
      };
    };

    it('passes again while a pass finds frames committed during the one before, and stops at the first that finds none', () => {
      const sql = connection([[100, 90], [130, 130], [130, 130]]);
      const r = checkpointRound(sql, CATCH_UP_ROUNDS, 64 << 20);
      expect(sql.asked).toEqual(['passive', 'passive', 'passive']);
      expect(r).toEqual({ busy: 0, log: 130, checkpointed: 130, truncated: false, walBytes: 0 });
    });

    it('stops after its catch-up passes when commits keep coming', () => {
      const sql = connection(Array.from({ length: 20 }, (_, i): [number, number] => [100 * (i + 1), 100 * i + 90]));
      const r = checkpointRound(sql, CATCH_UP_ROUNDS, 64 << 20);
      expect(sql.asked).toEqual(Array(1 + CATCH_UP_ROUNDS).fill('passive'));
      expect(r.log).toBe(100 * (1 + CATCH_UP_ROUNDS));
    });

    it('truncates a WAL that is still past the bound after its passes', () => {
      const sql = connection([[50, 10]], 2 << 20);
      const r = checkpointRound(sql, CATCH_UP_ROUNDS, 1 << 20);
      expect(sql.asked).toEqual(['passive', 'passive', 'truncate']);
      expect(r.truncated).toBe(true);
    });
  });
});
