import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { Logger } from 'pino';
import type { Role } from '@seam/shared/model';
import { CloseCode, CLOSE_REASONS } from '@seam/shared/protocol';
import type { Limits } from '../config';
import type { Metrics } from '../metrics';
import { refuseUpgrade } from '../security-headers';
import type { Store } from '../store';
import type { RoomDirectory } from '../store/shared-store';
import { hashToken, tokenFrom } from '../auth/tokens';
import { Connection } from './connection';
import { Heartbeat } from './heartbeat';
import type { Room } from './room';
import type { Rooms } from './rooms';

export interface SyncTransportDeps {
  readonly store: Store;
  /** Scaled mode: the shared room directory tokens are looked up in; absent, the embedded store's, at once. */
  readonly directory?: RoomDirectory | undefined;
  readonly rooms: Rooms;
  readonly metrics: Metrics;
  readonly limits: Limits;
  readonly log: Logger;
  /** Another endpoint's upgrade handler (the runner socket), tried for paths that are not `/sync/…`; true when it took the request. */
  readonly otherUpgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean;
}

const SYNC_PATH = /^\/sync\/([A-Za-z0-9_-]{1,128})$/;

function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return new Uint8Array(Buffer.concat(data));
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * Serves `/sync/:roomId?token=…[&ack=1]` on `server`'s upgrade event with `ws` (no server of its
 * own, frames capped at `limits.maxFrameBytes`, which `ws` closes with 1009 before buffering).
 * A missing or wrong token is closed with `unauthorized` before any document data is sent.
 */
export function attachSync(server: Server, deps: SyncTransportDeps): { close(): void } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: deps.limits.maxFrameBytes, perMessageDeflate: false });
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const m = url.pathname.match(SYNC_PATH);
    if (!m) {
      if (deps.otherUpgrade?.(req, socket, head)) return;
      void refuseUpgrade(socket, 404);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws, m[1] as string, url, req));
  };
  server.on('upgrade', onUpgrade);

  const heartbeat = new Heartbeat(wss.clients, deps.limits.pingSeconds * 1000);

  const accept = (ws: WebSocket, roomId: string, url: URL, req: IncomingMessage): void => {
    const { store, rooms, metrics, limits, log } = deps;
    const reject = (code: CloseCode): void => {
      metrics.closed.inc({ code: String(code) });
      ws.close(code, CLOSE_REASONS[code]);
    };
    ws.on('error', (err) => log.debug({ err: err.message, room: roomId }, 'socket error'));
    heartbeat.alive(ws);
    ws.on('pong', () => heartbeat.alive(ws));
    // Until the token is checked and the room loaded, the socket's messages wait here in order;
    // then each is handled as it comes, on the turn it arrives.
    let waiting: { data: RawData; isBinary: boolean }[] | undefined = [];
    let handle: ((data: RawData, isBinary: boolean) => void) | undefined;
    let gone = false;
    ws.on('message', (data, isBinary) => {
      if (handle) handle(data, isBinary);
      else waiting?.push({ data, isBinary });
    });
    ws.on('close', () => {
      gone = true;
      waiting = undefined;
    });
    const failed = (what: string) => (err: unknown) => {
      log.error({ err, room: roomId }, what);
      if (!gone) reject(CloseCode.serverError);
    };

    const joined = (room: Room, role: Role, hash: Buffer): void => {
      if (gone) return;
      if (room.conns.size >= limits.connectionsPerRoom) return reject(CloseCode.roomFull);
      const socket = {
        send: (data: Uint8Array) => {
          if (ws.readyState !== ws.OPEN) return;
          // A consumer this far behind is dropped; the stock client reconnects and resyncs.
          if (ws.bufferedAmount > limits.sendBufferBytes) return ws.terminate();
          ws.send(data);
        },
        close: (code: number, reason: string) => ws.close(code, reason),
      };
      const conn = new Connection(socket, role, hash.toString('hex'), url.searchParams.get('ack') === '1', limits, metrics);
      handle = (data, isBinary) => {
        if (conn.closed) return;
        const bytes = toBytes(data);
        metrics.bytesIn.inc(bytes.length);
        if (!isBinary) return conn.close(CloseCode.malformedMessage);
        try {
          room.receive(conn, bytes);
        } catch (err) {
          log.debug({ err: (err as Error).message, room: roomId }, 'malformed message');
          conn.close(CloseCode.malformedMessage);
        }
      };
      ws.on('close', (code) => {
        if (code === CloseCode.messageTooBig) metrics.closed.inc({ code: String(code) });
        rooms.leave(room, conn);
      });
      rooms.join(room, conn);
      const early = waiting ?? [];
      waiting = undefined;
      for (const m of early) handle(m.data, m.isBinary);
      // Scaled mode: a rotation's `closeToken` frame reaches only sockets already joined, so the
      // token is checked once more now that this one is: a rotation committed before this check
      // closes it here, one committed after it publishes its frame after the join.
      deps.directory?.lookupToken(hash).then((again) => {
        if (conn.closed || (again && again.roomId === roomId)) return;
        conn.close(CloseCode.tokenRevoked);
        rooms.leave(room, conn);
      }, failed('token could not be looked up again'));
    };

    const admit = (grant: { roomId: string; role: Role } | undefined, hash: Buffer): void => {
      if (gone) return;
      if (!grant || grant.roomId !== roomId) return reject(CloseCode.unauthorized);
      rooms.load(roomId).then((room) => joined(room, grant.role, hash), failed('room could not be loaded'));
    };

    const token = tokenFrom(req.headers.authorization, url.searchParams.get('token'));
    const hash = token ? hashToken(token) : undefined;
    if (!hash) return reject(CloseCode.unauthorized);
    if (!deps.directory) return admit(store.rooms.lookupToken(hash), hash);
    deps.directory.lookupToken(hash).then((grant) => admit(grant, hash), failed('token could not be looked up'));
  };

  return {
    close: () => {
      server.off('upgrade', onUpgrade);
      heartbeat.stop();
      for (const ws of wss.clients) ws.terminate();
      wss.close();
    },
  };
}
