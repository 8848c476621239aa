import * as Y from 'yjs';
import * as decoding from 'lib0/decoding';
import WebSocket from 'ws';
import { WebsocketProvider } from 'y-websocket';
import { MessageType, readAck, readRefused, type Ack } from '@seam/shared/protocol';
import type { TestServer } from './server';

/** A stock y-websocket client in a test, with what it saw. */
export interface TestClient {
  readonly doc: Y.Doc;
  readonly provider: WebsocketProvider;
  /** Ack messages received (only with `ack: true`). */
  readonly acks: Ack[];
  /** Reasons of the refused messages received (only with `ack: true`), in order. */
  readonly refused: string[];
  /** Close codes the server sent this client. */
  readonly closes: number[];
  /** Resolves when the provider has synced. */
  synced(): Promise<void>;
  destroy(): void;
}

/**
 * Resolves once `check()` is (or resolves to) true, polling every 10 ms; rejects with `what` after
 * `timeoutMs` (a deadline for failure, not a timing assertion).
 */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Connects the stock `WebsocketProvider` (over `ws`) to room `roomId` with `token`; with
 * `ack: true` it asks for durable acknowledgements and records them, and the refused messages.
 */
export function connectClient(server: Pick<TestServer, 'url'>, roomId: string, token: string, opts: { ack?: boolean; doc?: Y.Doc } = {}): TestClient {
  const doc = opts.doc ?? new Y.Doc();
  const params: Record<string, string> = { token };
  if (opts.ack) params.ack = '1';
  const provider = new WebsocketProvider(`${server.url.replace(/^http/, 'ws')}/sync`, roomId, doc, {
    WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
    params,
    disableBc: true,
    maxBackoffTime: 300,
  });
  const acks: Ack[] = [];
  const refused: string[] = [];
  const closes: number[] = [];
  provider.messageHandlers[MessageType.ack] = (_encoder: unknown, decoder: decoding.Decoder) => {
    acks.push(readAck(decoder));
  };
  provider.messageHandlers[MessageType.refused] = (_encoder: unknown, decoder: decoding.Decoder) => {
    refused.push(readRefused(decoder).reason);
  };
  provider.on('connection-close', (event) => {
    if (event) closes.push(event.code);
  });
  return {
    doc, provider, acks, refused, closes,
    synced: () => waitFor(() => provider.synced, `client of ${roomId} to sync`),
    destroy: () => {
      provider.destroy();
      doc.destroy();
    },
  };
}

/** A bare socket for sending hand-made frames, with what it received and how it was closed. */
export interface RawSocket {
  readonly ws: WebSocket;
  readonly received: Uint8Array[];
  readonly closed: Promise<{ code: number; reason: string }>;
  opened(): Promise<void>;
}

/**
 * Opens a raw WebSocket to `/sync/:roomId` with the given query string (e.g. `token=…`);
 * `autoPong: false` makes it ignore the server's pings.
 */
export function rawSocket(server: Pick<TestServer, 'url'>, roomId: string, query: string, opts: { autoPong?: boolean } = {}): RawSocket {
  const ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}/sync/${roomId}?${query}`, { autoPong: opts.autoPong ?? true });
  const received: Uint8Array[] = [];
  ws.on('message', (data: Buffer) => received.push(new Uint8Array(data)));
  ws.on('error', () => undefined);
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  const opened = () => new Promise<void>((resolve, reject) => {
    if (ws.readyState === WebSocket.OPEN) return resolve();
    ws.once('open', () => resolve());
    ws.once('close', (code) => reject(new Error(`closed with ${code} before opening`)));
  });
  return { ws, received, closed, opened };
}

/** The message type of a frame the server sent. */
export function messageType(frame: Uint8Array): number {
  return decoding.readVarUint(decoding.createDecoder(frame));
}
