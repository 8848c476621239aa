import WebSocket from 'ws';
import * as Y from 'yjs';
import * as decoding from 'lib0/decoding';
import * as random from 'lib0/random';
import { encodeAwarenessMessage, encodeSyncMessage, MessageType, readAwarenessEntries, writeAwarenessEntries } from '@seam/shared/protocol';

/** Sync sub-messages of y-protocols (`sync.js`). */
const SyncStep1 = 0;
const SyncStep2 = 1;
const SyncUpdate = 2;

/** How often a stock client renews its awareness state (y-protocols: half the 30 s outdated timeout). */
const AWARENESS_RENEW_MS = 15_000;

/** Origin of the writer's local deletions, which are never sent. */
const FORGET = Symbol('forget');

/** The Yjs ID of a write's first struct: `client:clock`, the same on every replica that receives it. */
export type WriteId = string;

/** Called with the arrival time (performance.now()) of every update message, before any decoding. */
export type OnUpdate = (arrivedAt: number, update: Uint8Array) => void;

/**
 * A lean y-websocket protocol client for the capacity benchmark: one real `ws` connection that
 * does what a stock `WebsocketProvider` puts on the wire, without keeping a replica of the room.
 * It sends sync step 1 (an empty state vector) and its awareness state on open, answers the
 * server's step 1 with its step 2, is synced at the server's step 2, renews its awareness every
 * 15 s and echoes awareness news as the stock client does. A writer keeps a Y.Doc of its own
 * writes only, so its updates are real Yjs encodings of room-schema changes; a reader keeps no
 * document and hands every update message to `onUpdate` as it arrives.
 */
export class LeanClient {
  /** Resolves at the server's sync step 2; rejects if the socket closes first. */
  readonly synced: Promise<void>;
  /** Close codes of every close after the socket opened (a healthy run has none before `close()`). */
  readonly closes: number[] = [];
  /** The writer's document: what it writes, and nothing it receives. */
  readonly doc = new Y.Doc();
  private readonly ws: WebSocket;
  /** Awareness clocks this client knows, by client ID: news is echoed, as `Awareness` does. */
  private readonly clocks = new Map<number, number>();
  private readonly state: string;
  private clock = 1;
  private renew: NodeJS.Timeout | undefined;
  private closing = false;

  constructor(url: string, name: string, private readonly onUpdate: OnUpdate) {
    this.doc.clientID = random.uint32();
    // What the stock provider sends for a local change: the transaction's own update.
    this.doc.on('update', (update: Uint8Array, origin: unknown) => {
      if (origin !== FORGET) this.send(encodeSyncMessage(SyncUpdate, update));
    });
    this.state = JSON.stringify({ user: { name, color: '#3b82f6' } });
    this.ws = new WebSocket(url);
    this.synced = new Promise<void>((resolve, reject) => {
      this.ws.on('open', () => {
        this.send(encodeSyncMessage(SyncStep1, Y.encodeStateVector(this.doc)));
        this.sendAwareness();
        this.renew = setInterval(() => {
          this.clock += 1;
          this.sendAwareness();
        }, AWARENESS_RENEW_MS);
      });
      this.ws.on('message', (data: Buffer) => {
        if (this.receive(data)) resolve();
      });
      // A socket error is followed by 'close', which records it.
      this.ws.on('error', () => undefined);
      this.ws.on('close', (code) => {
        clearInterval(this.renew);
        if (!this.closing) this.closes.push(code);
        reject(new Error(`${name}: closed by the server with ${code} before it synced`));
      });
    });
    this.synced.catch(() => undefined);
  }

  /**
   * Adds what `change` writes to the writer's document and sends it as one update; returns its ID.
   * Then deletes, without sending, every key of the document's root maps, so that Yjs collects the
   * written content and a long run does not grow this process's heap (and its GC pauses) by every
   * annotation it wrote. Later writes of new keys encode exactly as before: a new key's item has
   * no origin.
   */
  write(change: (doc: Y.Doc) => void): WriteId {
    const id = `${this.doc.clientID}:${Y.getState(this.doc.store, this.doc.clientID)}`;
    this.doc.transact(() => change(this.doc));
    this.doc.transact(() => {
      for (const type of this.doc.share.values()) {
        if (type instanceof Y.Map) for (const key of [...type.keys()]) type.delete(key);
      }
    }, FORGET);
    return id;
  }

  /** Closes the socket from the client's side (not counted as a server close). */
  close(): void {
    this.closing = true;
    clearInterval(this.renew);
    this.ws.close();
    this.doc.destroy();
  }

  private send(message: Uint8Array): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(message);
  }

  private sendAwareness(): void {
    this.send(encodeAwarenessMessage(writeAwarenessEntries([{ clientID: this.doc.clientID, clock: this.clock, state: this.state }])));
  }

  /** Handles one frame; true when it was the server's sync step 2. */
  private receive(data: Buffer): boolean {
    const now = performance.now();
    const d = decoding.createDecoder(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    const type = decoding.readVarUint(d);
    if (type === MessageType.awareness) {
      this.echo(decoding.readVarUint8Array(d));
      return false;
    }
    if (type !== MessageType.sync) return false;
    const sub = decoding.readVarUint(d);
    const payload = decoding.readVarUint8Array(d);
    if (sub === SyncStep1) this.send(encodeSyncMessage(SyncStep2, Y.encodeStateAsUpdate(this.doc, payload)));
    else if (sub === SyncUpdate) this.onUpdate(now, payload);
    return sub === SyncStep2;
  }

  /** A stock client re-broadcasts every awareness entry that is news to it (a higher clock). */
  private echo(update: Uint8Array): void {
    const news = readAwarenessEntries(update).filter((e) => {
      if (e.clientID === this.doc.clientID || e.clock <= (this.clocks.get(e.clientID) ?? -1)) return false;
      this.clocks.set(e.clientID, e.clock);
      return true;
    });
    if (news.length > 0) this.send(encodeAwarenessMessage(writeAwarenessEntries(news)));
  }
}

/** The Yjs ID of the first struct of `update` (the struct a write starts with), or undefined for an update without structs. */
export function firstStructId(update: Uint8Array): WriteId | undefined {
  const d = decoding.createDecoder(update);
  if (decoding.readVarUint(d) === 0 || decoding.readVarUint(d) === 0) return undefined;
  const client = decoding.readVarUint(d);
  return `${client}:${decoding.readVarUint(d)}`;
}

