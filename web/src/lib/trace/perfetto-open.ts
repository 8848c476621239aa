/** Where Perfetto UI runs; it takes a trace from the tab that opened it by `postMessage`. */
export const PERFETTO_ORIGIN = 'https://ui.perfetto.dev';

/** What Perfetto UI is handed: the trace's bytes (gzipped or not), a title and a file name. */
export interface PerfettoTrace {
  readonly buffer: ArrayBuffer;
  readonly title: string;
  readonly fileName: string;
}

/** The tab opened on Perfetto UI, as far as the handshake uses it. */
export interface PerfettoTab {
  postMessage(message: unknown, targetOrigin: string): void;
}

/** The page's window, as far as the handshake uses it (the real `window`, or a stand-in). */
export interface HandshakeHost {
  open(url: string, target: string): PerfettoTab | null;
  addEventListener(type: 'message', listener: (e: { data: unknown; source: unknown; origin: string }) => void): void;
  removeEventListener(type: 'message', listener: (e: { data: unknown; source: unknown; origin: string }) => void): void;
  setInterval(handler: () => void, ms: number): number;
  clearInterval(id: number): void;
}

/** Why a trace could not be handed to Perfetto UI. */
export class PerfettoOpenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PerfettoOpenError';
  }
}

/** How often the new tab is pinged, and how many pings go unanswered before giving up (30 s). */
const PING_MS = 100;
export const MAX_PINGS = 300;

/**
 * Opens Perfetto UI in a new tab and hands it a trace with its documented handshake: the tab is
 * opened at once (inside the click, or the browser blocks it), `load` fetches the bytes meanwhile,
 * the tab is sent `PING` until it answers `PONG`, then it is posted `{perfetto: {buffer, title,
 * fileName}}`. Rejects with a `PerfettoOpenError` when the tab is blocked or never answers.
 */
export function openInPerfetto(host: HandshakeHost, load: () => Promise<PerfettoTrace>): Promise<void> {
  const tab = host.open(PERFETTO_ORIGIN, '_blank');
  if (!tab) return Promise.reject(new PerfettoOpenError('the browser blocked the new tab for Perfetto UI'));
  const trace = load();
  return new Promise<void>((resolve, reject) => {
    let pings = 0;
    const stop = () => {
      host.clearInterval(timer);
      host.removeEventListener('message', listener);
    };
    const listener = (e: { data: unknown; source: unknown; origin: string }) => {
      if (e.source !== tab || e.origin !== PERFETTO_ORIGIN || e.data !== 'PONG') return;
      stop();
      trace.then((t) => {
        tab.postMessage({ perfetto: { buffer: t.buffer, title: t.title, fileName: t.fileName } }, PERFETTO_ORIGIN);
        resolve();
      }, reject);
    };
    host.addEventListener('message', listener);
    const timer = host.setInterval(() => {
      if (++pings > MAX_PINGS) {
        stop();
        reject(new PerfettoOpenError(`Perfetto UI did not answer at ${PERFETTO_ORIGIN}: can this browser reach it? Download the trace and open it there instead`));
        return;
      }
      tab.postMessage('PING', PERFETTO_ORIGIN);
    }, PING_MS);
    trace.catch((e: unknown) => {
      stop();
      reject(e);
    });
  });
}
