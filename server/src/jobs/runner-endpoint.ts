import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { CloseCode, CLOSE_REASONS, MAX_RUNNER_FRAME } from '@seam/shared/protocol';
import { refuseUpgrade } from '../security-headers';
import { bearer } from './runner-auth';
import type { RunnerTokenInfo } from './runner-tokens';
import type { CaptureService } from './service';

/** The WebSocket endpoint runners dial: `GET /runner` upgraded, `Authorization: Bearer <runner token>`. */
export interface RunnerEndpoint {
  /** Takes an HTTP upgrade if its path is `/runner` (true), else leaves it to others (false). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Closes every runner socket. */
  close(): void;
}

/** Path of the runner socket. */
export const RUNNER_PATH = '/runner';

/** Builds the runner endpoint over a capture service; attach `handleUpgrade` to the HTTP server's `upgrade` event. */
export function createRunnerEndpoint(service: CaptureService): RunnerEndpoint {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_RUNNER_FRAME });
  const accept = (token: RunnerTokenInfo, req: IncomingMessage, socket: Duplex, head: Buffer) => {
    wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      const handlers = service.attach(token, {
        send: (data) => ws.send(data),
        close: (code, reason) => ws.close(code, reason),
      });
      ws.on('message', (data, isBinary) => {
        if (isBinary) {
          ws.close(CloseCode.malformedMessage, CLOSE_REASONS[CloseCode.malformedMessage]);
          return;
        }
        handlers.onMessage(data.toString());
      });
      ws.on('close', () => handlers.onClose());
      ws.on('error', () => ws.terminate());
    });
  };
  return {
    handleUpgrade(req, socket, head) {
      const path = (req.url ?? '').split('?')[0];
      if (path !== RUNNER_PATH) return false;
      // The token is checked in the store (PostgreSQL in scaled mode); one that cannot answer
      // drops the connection, and the runner dials again with backoff.
      service.tokens.verify(bearer(req.headers.authorization) ?? '').then((token) => {
        if (!token) return refuseUpgrade(socket, 401);
        if (!socket.destroyed) accept(token, req, socket, head);
        return undefined;
      }).catch(() => socket.destroy());
      return true;
    },
    close() {
      for (const ws of wss.clients) ws.close(CloseCode.goingAway, CLOSE_REASONS[CloseCode.goingAway]);
      wss.close();
    },
  };
}
