import { createRoom, startTestServer } from '../../helpers/server';
import type { BenchRoom, ServerUnderTest } from './servers';

/**
 * Starts Seam as the crash tests do: `server/src/main.ts` in a child process (`node --import tsx`,
 * like the reference) on port 0 with SQLite in a temp data dir, default configuration (so every
 * update is persisted before it is broadcast, with the default synchronous mode).
 */
export async function startSeam(): Promise<ServerUnderTest> {
  const server = await startTestServer({ child: true });
  const pid = server.child?.pid;
  if (pid === undefined) throw new Error('the Seam test server did not start as a child process');
  return {
    name: 'seam',
    syncUrl: `ws://127.0.0.1:${server.port}/sync`,
    pid,
    acks: true,
    createRoom: async (title, dumpText): Promise<BenchRoom> => {
      const room = await createRoom(server, title);
      const res = await fetch(`${server.url}/api/rooms/${room.id}/documents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${room.tokens.annotator}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'jit_attention.after_optimizations.txt', text: dumpText }),
      });
      if (res.status !== 201) throw new Error(`POST /api/rooms/:id/documents answered ${res.status}: ${await res.text()}`);
      const doc = (await res.json()) as { id: string };
      return { id: room.id, docId: doc.id, writer: { token: room.tokens.annotator }, reader: { token: room.tokens.viewer } };
    },
    stop: () => server.close(),
  };
}
