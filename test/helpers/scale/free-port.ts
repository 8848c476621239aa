import { createServer } from 'node:net';

/**
 * A loopback TCP port that was free a moment ago: for daemons that cannot listen on port 0 and
 * report back (PostgreSQL, Redis, HAProxy). Another process may take it before the daemon does;
 * the daemon then fails to start with "address in use", which `startDaemon` callers retry.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('free port: the probe socket has no TCP address');
  return address.port;
}
