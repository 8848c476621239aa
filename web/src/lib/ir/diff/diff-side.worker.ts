import { answerGraphRequest, type GraphRequest } from '@seam/shared/ir/diff-thread';

// One side of a diff, read here while the diff worker reads the other; answers in the order asked.
self.onmessage = (e: MessageEvent<GraphRequest>) => {
  const { reply, transfer } = answerGraphRequest(e.data);
  self.postMessage(reply, { transfer });
};
