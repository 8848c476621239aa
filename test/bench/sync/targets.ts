import { startReference, type ServerUnderTest } from './servers';

/** A server the sync benchmarks compare, started fresh for every scenario. */
export interface Target {
  readonly name: string;
  start(): Promise<ServerUnderTest>;
}

/** The servers every sync benchmark runs, reference first, in one run. */
export const TARGETS: readonly Target[] = [{ name: 'reference', start: startReference }];

/** Starts `target`, runs `measure` against it, and stops it whatever happens. */
export async function withServer<T>(target: Target, measure: (server: ServerUnderTest) => Promise<T>): Promise<T> {
  const server = await target.start();
  try {
    return await measure(server);
  } finally {
    await server.stop();
  }
}
