import WebSocket from 'ws';
import * as Y from 'yjs';
import type * as decoding from 'lib0/decoding';
import { WebsocketProvider } from 'y-websocket';
import { encodeSyncMessage, MessageType } from '@seam/shared/protocol';

/** One stock y-websocket 3.x client: its document, its provider, and a promise of the first sync. */
export interface StockClient {
  readonly doc: Y.Doc;
  readonly provider: WebsocketProvider;
  /** Resolves on the first `sync` event; rejects when the server closes the socket for good first. */
  readonly synced: Promise<void>;
  /** Close codes of every connection the server closed after it opened (a healthy run has none). */
  readonly closes: number[];
  destroy(): void;
}

/**
 * Opens a stock `WebsocketProvider` on `room` of `syncUrl` (`ws://host:port/sync`), over `ws`, with
 * the cross-tab BroadcastChannel off: Node has a global BroadcastChannel, and clients of one
 * process would otherwise pass updates to each other past the server.
 */
export function openStockClient(syncUrl: string, room: string, params: Record<string, string>, name: string): StockClient {
  const doc = new Y.Doc();
  const provider = new WebsocketProvider(syncUrl, room, doc, {
    params,
    WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
    disableBc: true,
  });
  provider.awareness.setLocalStateField('user', { name, color: '#3b82f6' });
  const closes: number[] = [];
  provider.on('connection-close', (event) => {
    if (event) closes.push(event.code);
  });
  const synced = new Promise<void>((resolve, reject) => {
    provider.on('sync', (state) => state && resolve());
    provider.on('closed', ({ code, reason }) => reject(new Error(`${name}: closed by the server with ${code} ${reason}`)));
  });
  synced.catch(() => undefined);
  return {
    doc,
    provider,
    synced,
    closes,
    destroy: () => {
      provider.destroy();
      doc.destroy();
    },
  };
}

/** When a join's phases happened (performance.now()); NaN until they do. */
export interface JoinTimes {
  /** The socket opened. */
  opened: number;
  /** The server's sync step 2 (the whole room) arrived, before the client applied it. */
  step2: number;
}

/** Records when `client`'s socket opens and when its first sync step 2 arrives, to split a join into phases. */
export function timeJoin(client: StockClient): JoinTimes {
  const times: JoinTimes = { opened: NaN, step2: NaN };
  client.provider.on('status', ({ status }) => {
    if (status === 'connected' && Number.isNaN(times.opened)) times.opened = performance.now();
  });
  const sync = client.provider.messageHandlers[MessageType.sync];
  if (!sync) throw new Error('the stock provider has no sync message handler');
  client.provider.messageHandlers[MessageType.sync] = (encoder, decoder, provider, emitSynced, type) => {
    // The sync message's own type follows the message type: 1 is step 2 (y-protocols sync.js).
    if (decoder.arr[decoder.pos] === 1 && Number.isNaN(times.step2)) times.step2 = performance.now();
    sync(encoder, decoder, provider, emitSynced, type);
  };
  return times;
}

/**
 * Resolves once the server has answered a sync step 1 sent now. A server handles a socket's
 * messages in order, so by then it has received, applied and relayed every update the client sent
 * before: closing the socket after that loses none of them (closing with unread data, such as the
 * reference server's echoes of the client's own updates, makes the kernel reset the connection and
 * drop what it has not sent yet).
 */
export function roundTrip(client: StockClient): Promise<void> {
  const sync = client.provider.messageHandlers[MessageType.sync];
  const ws = client.provider.ws;
  if (!sync || !ws) return Promise.reject(new Error('the stock provider has no sync handler or socket'));
  return new Promise((resolve) => {
    client.provider.messageHandlers[MessageType.sync] = (encoder, decoder, provider, emitSynced, type) => {
      // The sync message's own type follows the message type: 1 is step 2 (y-protocols sync.js).
      const step2 = decoder.arr[decoder.pos] === 1;
      sync(encoder, decoder, provider, emitSynced, type);
      if (step2) resolve();
    };
    // lib0 encoders return plain ArrayBuffer-backed arrays.
    ws.send(encodeSyncMessage(0, Y.encodeStateVector(client.doc)) as Uint8Array<ArrayBuffer>);
  });
}

/** Lets a client read Seam's ack extension message (type 100); stock clients never receive it. */
export function onAckMessage(client: StockClient, read: (decoder: decoding.Decoder) => void): void {
  client.provider.messageHandlers[MessageType.ack] = (_encoder, decoder) => read(decoder);
}

/** Opens clients `concurrency` at a time (default 50), each resolved once synced. */
export async function openMany<T>(count: number, concurrency: number, open: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array<T>(count);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) {
      const i = next;
      next += 1;
      out[i] = await open(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return out;
}
