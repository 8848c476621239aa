import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino, type Logger } from 'pino';
import { CloseCode } from '@seam/shared/protocol';
import { createApp } from './app';
import { resolveConfig, type Config, type Limits } from './config';
import { createRunnerEndpoint } from './jobs/runner-endpoint';
import type { JobTimings } from './jobs/service';
import { createCaptureService, localRunnerToken } from './jobs/wiring';
import { openDeps } from './deps';
import { attachSync } from './sync/ws-transport';

/** A running server. `close()` closes sockets (going away), commits every queue and closes the store. */
export interface RunningServer {
  readonly url: string;
  readonly port: number;
  /** Creates a runner token named `name`, revoking older live ones of that name (for the local runner). */
  createRunnerToken(name: string): string;
  close(): Promise<void>;
}

/** Options of `startServer`: any config field (limits field by field) and a logger. */
export type StartOptions = Partial<Omit<Config, 'limits'>> & { limits?: Partial<Limits>; log?: Logger; jobs?: Partial<JobTimings> };

/**
 * Opens the store in `dataDir` (and in scaled mode PostgreSQL and Redis), starts HTTP and the sync socket on `host:port` (port 0 picks a
 * free one) and resolves once connections are accepted.
 */
export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const { log: givenLog, jobs: jobTimings, ...partial } = options;
  const config = resolveConfig(partial);
  const log = givenLog ?? pino({ level: config.logLevel });
  const deps = await openDeps(config, log);
  const { store, rooms, metrics } = deps;
  const jobs = await createCaptureService(deps, log, jobTimings);
  const runnerEndpoint = createRunnerEndpoint(jobs);
  const app = createApp({ ...deps, jobs });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolve(s as Server)) as Server;
    s.once('error', reject);
  });
  const sync = attachSync(server, {
    store, directory: deps.directory, rooms, metrics, limits: config.limits, log, otherUpgrade: runnerEndpoint.handleUpgrade,
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  log.info({ url, dataDir: config.dataDir, syncMode: config.syncMode, mode: deps.scaled ? 'scaled' : 'embedded' }, 'listening');
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    createRunnerToken: (name) => localRunnerToken(deps, name),
    close: () => {
      closing ??= (async () => {
        await jobs.close();
        runnerEndpoint.close();
        rooms.closeAll(CloseCode.goingAway);
        sync.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await deps.analyzer.close();
        // Scaled mode: commits and compactions still in flight answer before the store closes.
        await rooms.settled();
        await deps.scaled?.bus.close();
        await deps.drillSignal?.close();
        await deps.scaled?.shared.close();
        store.close();
      })();
      return closing;
    },
  };
}
