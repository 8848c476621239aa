import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { IncomingMessage } from 'node:http';

/**
 * The reference server of the sync benchmarks: the y-websocket 2.1.0 package's own
 * `bin/utils.cjs` (`setupWSConnection`), started the way its `bin/server.cjs` starts it, with no
 * persistence (YPERSISTENCE unset), on an ephemeral port. Prints `{"port":N}` on its first line.
 * Run as its own process: `node --import tsx reference-server.ts`.
 */
type SetupWSConnection = (conn: WebSocket, req: IncomingMessage) => void;

delete process.env.YPERSISTENCE;
const require = createRequire(import.meta.url);
const { setupWSConnection } = require('y-websocket-ref/bin/utils') as { setupWSConnection: SetupWSConnection };

const wss = new WebSocketServer({ noServer: true });
wss.on('connection', setupWSConnection);

const server = createServer((_request, response) => {
  response.writeHead(200, { 'Content-Type': 'text/plain' });
  response.end('okay');
});
server.on('upgrade', (request, socket, head) => {
  wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
