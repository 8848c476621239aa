import { Worker } from 'node:worker_threads';
import { diffModulesAside, graphOfReply, type DiffOptions, type GraphReader, type GraphReply, type GraphRequest, type ModuleDiff } from '@seam/shared/ir';

/**
 * The worker's first code: the commands run TypeScript through tsx, whose loader a worker thread
 * does not inherit, so it registers it before importing `diff-worker.ts`.
 */
function bootCode(): string {
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./diff-worker.ts', import.meta.url).href;
  return `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
}

/** A worker thread reading one side of a diff: `read` once, or `close` when it is not needed. */
export interface SideThread {
  readonly read: GraphReader;
  close(): void;
}

/**
 * Starts a worker thread for one side of a diff. It takes about 0.3 s of its own to start (a
 * thread, tsx, the reading modules), so a command starts it before it reads its files. It ends
 * once it has answered, or on `close`.
 */
export function startSideThread(): SideThread {
  const worker = new Worker(bootCode(), { eval: true });
  // Until `read` is called, a failure to start waits here to be said by it.
  const answer = new Promise<GraphReply>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    // Only an exit before the answer says anything: after it, the promise is settled.
    worker.once('exit', (code) => reject(new Error(`the thread reading a side of the diff exited with ${code} before answering`)));
  });
  answer.catch(() => undefined);
  return {
    read: async (text, kind) => {
      const request: GraphRequest = { text, kind };
      worker.postMessage(request);
      try {
        return graphOfReply(await answer);
      } finally {
        void worker.terminate();
      }
    },
    close: () => void worker.terminate(),
  };
}

/**
 * `seam diff`'s core: `diffModules`, with B read in a worker thread while this one reads A; the
 * thread is started here unless one was (`startSideThread`).
 */
export function diffInThreads(textA: string, textB: string, options: DiffOptions = {}, side: SideThread = startSideThread()): Promise<ModuleDiff> {
  return diffModulesAside(textA, textB, options, side.read);
}
