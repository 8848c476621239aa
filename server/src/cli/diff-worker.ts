import { parentPort } from 'node:worker_threads';
import { answerGraphRequest, type GraphRequest } from '@seam/shared/ir/diff-thread';

// One side of a diff, read in this thread while the main one reads the other (see
// `diff-threads.ts`); requests are answered in the order they come.
parentPort?.on('message', (r: GraphRequest) => {
  const { reply, transfer } = answerGraphRequest(r);
  parentPort?.postMessage(reply, transfer);
});
