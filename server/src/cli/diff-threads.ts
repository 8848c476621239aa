import { Worker } from 'node:worker_threads';
import { diffModulesAside, graphOfReply, type DiffGraphData, type DiffOptions, type GraphReply, type GraphRequest, type ModuleDiff } from '@seam/shared/ir';
import type { DocumentKind } from '@seam/shared/model';

/**
 * The worker's first code: the commands run TypeScript through tsx, whose loader a worker thread
 * does not inherit, so it registers it before importing `diff-worker.ts`.
 */
function bootCode(): string {
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./diff-worker.ts', import.meta.url).href;
  return `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
}

/** Reads one side of a diff in a worker thread of its own, ended once it has answered. */
export function readGraphInWorker(text: string, kind: DocumentKind): Promise<DiffGraphData> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(bootCode(), { eval: true });
    worker.once('message', (reply: GraphReply) => {
      void worker.terminate();
      try {
        resolve(graphOfReply(reply));
      } catch (err) {
        reject(err as Error);
      }
    });
    worker.once('error', reject);
    // Only an exit before the answer says anything: after it, the promise is settled.
    worker.once('exit', (code) => reject(new Error(`the thread reading a side of the diff exited with ${code} before answering`)));
    const request: GraphRequest = { text, kind };
    worker.postMessage(request);
  });
}

/** `seam diff`'s core: `diffModules`, with B read in a worker thread while this one reads A. */
export function diffInThreads(textA: string, textB: string, options: DiffOptions = {}): Promise<ModuleDiff> {
  return diffModulesAside(textA, textB, options, readGraphInWorker);
}
