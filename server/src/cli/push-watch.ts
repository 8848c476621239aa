import { listFiles, type LocalFile } from './push-files';
import type { Output } from './analyze-command';

/** The state of a file as the watcher last saw it. */
const stateOf = (f: LocalFile): string => `${f.bytes}:${f.mtimeMs}`;

/**
 * Watches `paths` (by listing them again every quarter of `quietMs`, at most once a second) and
 * hands `push` each batch of files that are new or changed since `pushed` and have kept the same
 * size and modification time for `quietMs`, so a dump still being written is not sent half. Runs
 * until `stop` aborts. A failed batch is reported and tried again with the next one.
 */
export async function watchAndPush(paths: readonly string[], pushed: readonly LocalFile[], quietMs: number, push: (batch: LocalFile[]) => Promise<void>, io: Output, stop?: AbortSignal): Promise<void> {
  const sent = new Map(pushed.map((f) => [f.path, stateOf(f)]));
  /** When each file was first seen in its current state. */
  const since = new Map<string, { state: string; at: number }>();
  const every = Math.min(1000, Math.max(50, quietMs / 4));
  io.out(`watching for new and changed files (a file is pushed once it has been quiet for ${quietMs / 1000} s); Ctrl+C stops`);
  while (!stop?.aborted) {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, every);
      stop?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
    });
    if (stop?.aborted) break;
    const now = performance.now();
    const { files } = await listFiles(paths);
    const ready: LocalFile[] = [];
    for (const f of files) {
      const state = stateOf(f);
      if (sent.get(f.path) === state) continue;
      const seen = since.get(f.path);
      if (!seen || seen.state !== state) since.set(f.path, { state, at: now });
      else if (now - seen.at >= quietMs) ready.push(f);
    }
    if (ready.length === 0) continue;
    try {
      await push(ready);
      for (const f of ready) {
        sent.set(f.path, stateOf(f));
        since.delete(f.path);
      }
    } catch (err) {
      io.err(`seam: pushing ${ready.length} files failed (${(err as Error).message}); trying again`);
    }
  }
}
