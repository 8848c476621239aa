import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { startLocalRunner } from '@seam/runners';
import { loadConfig } from './config';
import { startServer } from './server';

/**
 * `npm start`: the server from the environment (see `loadConfig`), serving `web/dist`. Prints one
 * JSON line `{"listening":{"port":N}}` on stdout once it accepts connections; logs go to stderr.
 */
const config = loadConfig(process.env);
const log = pino({ level: config.logLevel }, pino.destination(2));
const webDir = config.webDir ?? fileURLToPath(new URL('../../web/dist', import.meta.url));
const server = await startServer({ ...config, webDir, log });
process.stdout.write(`${JSON.stringify({ listening: { port: server.port, url: server.url } })}\n`);
// Unless SEAM_RUNNER=off: a CPU runner for this server, its JAX virtualenv built on first use.
const localRunner = config.runner
  ? startLocalRunner({ serverUrl: server.url, token: server.createRunnerToken('local'), onProgress: (line) => log.info({ runner: 'local' }, line) })
    .catch((err: unknown) => void log.error({ err }, 'the local runner did not start'))
  : undefined;

const stop = (signal: string) => {
  log.info({ signal }, 'shutting down');
  Promise.all([localRunner?.then((r) => r?.stop()), server.close()]).then(
    () => process.exit(0),
    (err: unknown) => {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    },
  );
};
process.once('SIGINT', () => stop('SIGINT'));
process.once('SIGTERM', () => stop('SIGTERM'));
