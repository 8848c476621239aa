import { fork, type ChildProcess } from 'node:child_process';

/**
 * A load generator in its own process, so that client work never shares the event loop of the
 * server under test. The parent sends a config, the child answers `ready` once its clients are
 * connected, the parent says `go`, the child answers with its result and exits.
 */
type ToChild<C> = { type: 'config'; config: C } | { type: 'go' };
type ToParent<R> = { type: 'ready'; info: unknown } | { type: 'result'; result: R } | { type: 'error'; message: string };

/** The parent's handle on a load-generator process. */
export interface LoadProcess<R> {
  readonly child: ChildProcess;
  /** Resolves with what the child reported once its clients are connected and synced. */
  readonly ready: Promise<unknown>;
  /** Starts the measured phase. */
  go(): void;
  readonly result: Promise<R>;
  kill(): void;
}

/** Forks `script` (a `.ts` file, run through tsx) and hands it `config`. */
export function forkLoad<C, R>(script: string, config: C): LoadProcess<R> {
  const child = fork(script, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = deferred<unknown>();
  const result = deferred<R>();
  const fail = (error: Error): void => {
    ready.reject(error);
    result.reject(error);
  };
  child.on('message', (raw) => {
    const message = raw as ToParent<R>;
    if (message.type === 'ready') ready.resolve(message.info);
    else if (message.type === 'result') result.resolve(message.result);
    else fail(new Error(`load process failed: ${message.message}`));
  });
  // 'close', not 'exit': it comes after the last IPC message has been delivered.
  child.on('close', (code, signal) => fail(new Error(`load process exited with ${code ?? signal} before its result`)));
  child.send({ type: 'config', config } satisfies ToChild<C>);
  return {
    child,
    ready: ready.promise,
    result: result.promise,
    go: () => child.send({ type: 'go' } satisfies ToChild<C>),
    kill: () => child.kill('SIGKILL'),
  };
}

/**
 * The child's side: runs `load` with the parent's config; `load` calls `ready(info)` once its
 * clients are connected, then awaits `go` before the measured phase. Exits after the result.
 */
export function serveLoad<C, R>(load: (config: C, ready: (info?: unknown) => void, go: Promise<void>) => Promise<R>): void {
  let start: () => void = () => undefined;
  const go = new Promise<void>((resolve) => {
    start = resolve;
  });
  const send = (message: ToParent<R>): void => {
    process.send?.(message, () => process.exit(message.type === 'result' ? 0 : 1));
  };
  process.on('message', (raw) => {
    const message = raw as ToChild<C>;
    if (message.type === 'go') {
      start();
      return;
    }
    load(message.config, (info) => process.send?.({ type: 'ready', info } satisfies ToParent<R>), go).then(
      (result) => send({ type: 'result', result }),
      (error: unknown) => send({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    );
  });
}

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: Error): void;
}

function deferred<T>(): Deferred<T> {
  let resolve: (value: T) => void = () => undefined;
  let reject: (error: Error) => void = () => undefined;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}
