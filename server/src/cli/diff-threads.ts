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

/** A worker thread reading sides of diffs, one `read` at a time in the order asked, until `close`. */
export interface SideThread {
  readonly read: GraphReader;
  close(): void;
}

/**
 * Starts a worker thread for the B side of diffs. It takes about 0.3 s of its own to start (a
 * thread, tsx, the reading modules), so a command starts it before it reads its files; and, a
 * fresh thread, its first reading runs cold code (about 1.6 s of CPU for a 25 MB dump where a warm
 * one takes 0.8–1.1), so whoever diffs several times keeps it. It runs until `close`; once it
 * fails or exits, every read waiting or to come rejects with why.
 */
export function startSideThread(): SideThread {
  const worker = new Worker(bootCode(), { eval: true });
  const waiting: { resolve: (r: GraphReply) => void; reject: (e: Error) => void }[] = [];
  let ended: Error | undefined;
  const end = (e: Error) => {
    ended ??= e;
    for (const w of waiting.splice(0)) w.reject(ended);
  };
  worker.on('message', (reply: GraphReply) => waiting.shift()?.resolve(reply));
  worker.on('error', end);
  worker.on('exit', (code) => end(new Error(`the thread reading a side of the diff exited with ${code} before answering`)));
  return {
    read: async (text, kind) => {
      const answer = new Promise<GraphReply>((resolve, reject) => {
        if (ended) return reject(ended);
        waiting.push({ resolve, reject });
        const request: GraphRequest = { text, kind };
        worker.postMessage(request);
      });
      return graphOfReply(await answer);
    },
    close: () => void worker.terminate(),
  };
}

/**
 * `seam diff`'s core: `diffModules`, with B read in a worker thread while this one reads A; the
 * thread is started for this diff and ended after it unless one is given (`startSideThread`).
 */
export async function diffInThreads(textA: string, textB: string, options: DiffOptions = {}, side?: SideThread): Promise<ModuleDiff> {
  const thread = side ?? startSideThread();
  try {
    return await diffModulesAside(textA, textB, options, thread.read);
  } finally {
    if (!side) thread.close();
  }
}
