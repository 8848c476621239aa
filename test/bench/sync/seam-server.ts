import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CreatedRoom } from '../../helpers/server';
import { spawnServer, stopChild, type BenchRoom, type ServerUnderTest } from './servers';

const MAIN = fileURLToPath(new URL('../../../server/src/main.ts', import.meta.url));

/**
 * Starts Seam from `server/src/main.ts` in a child process, the same way as the reference, on port
 * 0 with SQLite in a fresh temp data dir and otherwise the default configuration: every update is
 * persisted before it is broadcast, with the default synchronous mode. Logs at `warn`, no runner.
 * Talks to it over HTTP only, so this process never loads the server's code.
 */
export async function startSeam(): Promise<ServerUnderTest> {
  const dataDir = mkdtempSync(join(tmpdir(), 'seam-bench-'));
  // The capacity run creates hundreds of rooms from one address within a minute.
  const env = { PORT: '0', HOST: '127.0.0.1', SEAM_DATA_DIR: dataDir, SEAM_RUNNER: 'off', SEAM_LOG_LEVEL: 'warn', SEAM_ROOMS_PER_MIN: '10000', SEAM_ROOMS_PER_HOUR: '10000' };
  const { child, port } = await spawnServer(MAIN, env).catch((error: unknown) => {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    name: 'seam',
    syncUrl: `ws://127.0.0.1:${port}/sync`,
    pid: child.pid ?? NaN,
    acks: true,
    createRoom: async (title, dumpText): Promise<BenchRoom> => {
      const created = await fetch(`${url}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title }) });
      if (created.status !== 201) throw new Error(`POST /api/rooms answered ${created.status}: ${await created.text()}`);
      const room = (await created.json()) as CreatedRoom;
      const res = await fetch(`${url}/api/rooms/${room.id}/documents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${room.tokens.annotator}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'jit_attention.after_optimizations.txt', text: dumpText }),
      });
      if (res.status !== 201) throw new Error(`POST /api/rooms/:id/documents answered ${res.status}: ${await res.text()}`);
      const doc = (await res.json()) as { id: string };
      return { id: room.id, docId: doc.id, writer: { token: room.tokens.annotator }, reader: { token: room.tokens.viewer } };
    },
    stop: async () => {
      await stopChild(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
