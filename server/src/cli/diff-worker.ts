import { parentPort } from 'node:worker_threads';
import { answerGraphRequest, type GraphRequest } from '@seam/shared/ir/diff-thread';

// One side of `seam diff`, read in this thread while the main one reads the other (see `diff-threads.ts`).
parentPort?.once('message', (r: GraphRequest) => {
  const { reply, transfer } = answerGraphRequest(r);
  parentPort?.postMessage(reply, transfer);
});
