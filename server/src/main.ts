import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { loadConfig } from './config';
import { checkLocalSandbox, localRunnerSandbox, superviseLocalRunner } from './local-runner';
import { startServer } from './server';

/**
 * `npm start`: the server from the environment (see `loadConfig`), serving `web/dist`. Once it
 * accepts connections it prints two lines on stdout: the JSON `{"listening":{"port":N,"url":…}}`
 * for scripts, then `Seam is running: open http://127.0.0.1:8080/` for people (the public URL
 * when `SEAM_PUBLIC_URL` is set). Logs (pino, JSON) go to stderr.
 */
const config = loadConfig(process.env);
const log = pino({ level: config.logLevel }, pino.destination(2));
const webDir = config.webDir ?? fileURLToPath(new URL('../../web/dist', import.meta.url));
// The local runner must run captures in bubblewrap; off loopback the server refuses to start
// otherwise (UnsandboxedRunnerError), on loopback it warns.
// Scaled mode does not serve runners yet (captures are kept per instance): no local runner there.
const runnerWanted = config.runner && config.scaled === undefined;
const sandbox = runnerWanted ? localRunnerSandbox(await checkLocalSandbox(process.env), config.host) : undefined;
if (sandbox?.warning) log.warn({ runner: 'local' }, sandbox.warning);
const server = await startServer({ ...config, webDir, log });
process.stdout.write(`${JSON.stringify({ listening: { port: server.port, url: server.url } })}\n`);
const openAt = config.publicUrl !== undefined && URL.canParse(config.publicUrl) ? config.publicUrl : server.url;
process.stdout.write(`Seam is running: open ${new URL(openAt).href}\n`);
// Unless SEAM_RUNNER=off: a CPU runner for this server in a child process, which builds its JAX
// virtualenv on first use, and is started again with backoff when it dies.
const localRunner = runnerWanted
  ? superviseLocalRunner({
    serverUrl: server.url, token: server.createRunnerToken('local'), env: process.env, log, requireSandbox: sandbox?.requireSandbox,
    onLine: (line) => log.info({ runner: 'local' }, line),
  })
  : undefined;

const stop = (signal: string) => {
  log.info({ signal }, 'shutting down');
  Promise.all([localRunner?.stop(), server.close()]).then(
    () => process.exit(0),
    (err: unknown) => {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    },
  );
};
process.once('SIGINT', () => stop('SIGINT'));
process.once('SIGTERM', () => stop('SIGTERM'));
