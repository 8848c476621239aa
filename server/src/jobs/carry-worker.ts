import { parentPort } from 'node:worker_threads';
import { carryDocument } from '@seam/shared/ir';
import type { Annotation, DocumentKind } from '@seam/shared/model';
import { newId } from '../auth/tokens';

/** A job for the carry worker: one layer's annotations and both texts. */
export interface CarryJob {
  readonly prevText: string;
  readonly nextText: string;
  readonly kind: DocumentKind;
  readonly annotations: readonly Annotation[];
  readonly docId: string;
  readonly captureId: string;
}

/** The worker's answer: the copies, or why it failed. */
export type CarryReply = { readonly copies: Annotation[] } | { readonly error: string };

/** Worker side of `carryAnnotations` for large dumps: carries one layer's annotations off the event loop. */
parentPort?.once('message', (job: CarryJob) => {
  try {
    const copies = carryDocument(job.prevText, job.nextText, job.kind, job.annotations, { docId: job.docId, captureId: job.captureId, newId });
    parentPort?.postMessage({ copies } satisfies CarryReply);
  } catch (err) {
    parentPort?.postMessage({ error: err instanceof Error ? err.message : String(err) } satisfies CarryReply);
  }
});
