import * as Y from 'yjs';
import { WebsocketProvider } from 'y-websocket';
import { IndexeddbPersistence } from 'y-indexeddb';
import { CLOSE_REASONS, CloseCode, MessageType, readAck, readRefused, type Ack } from '@seam/shared/protocol';
import { rejoinPresence } from './rejoin-presence';
import { SaveTracker } from './save-tracker';

/** Connection facts a session reports on every change. */
export interface SessionStatus {
  readonly connected: boolean;
  readonly synced: boolean;
  readonly refused: string | null;
  readonly waiting: number;
  readonly localLoaded: boolean;
}

/** Close codes after which reconnecting with the same token cannot help. */
const TERMINAL: ReadonlySet<number> = new Set([CloseCode.unauthorized, CloseCode.tokenRevoked, CloseCode.roomNotFound]);

/**
 * One person's live connection to a room: the room Y.Doc, kept in IndexedDB and synced over the
 * y-websocket protocol with the durable-ack extension (`?ack=1`), and the save tracker that says
 * how many local changes the server has not yet acknowledged as on disk.
 */
export class RoomSession {
  readonly doc = new Y.Doc();
  readonly provider: WebsocketProvider;
  readonly local: IndexeddbPersistence;
  private readonly tracker = new SaveTracker();
  private refused: string | null = null;
  private localLoaded = false;

  constructor(
    wsBase: string,
    readonly roomId: string,
    token: string,
    private readonly onStatus: (s: SessionStatus) => void,
    /** Called when the server refused one of this replica's updates, with its reason (e.g. `locked`). */
    private readonly onRefused: (reason: string) => void = () => {},
  ) {
    this.local = new IndexeddbPersistence(`seam-room-${roomId}`, this.doc);
    void this.local.whenSynced.then(() => {
      this.localLoaded = true;
      this.emit();
    });
    this.doc.on('afterTransaction', (tr) => {
      const before = tr.beforeState.get(this.doc.clientID) ?? 0;
      const after = tr.afterState.get(this.doc.clientID) ?? 0;
      if (tr.local && after > before) {
        this.tracker.recordLocal(after);
        this.emit();
      }
    });
    this.provider = new WebsocketProvider(`${wsBase}/sync`, roomId, this.doc, { params: { token, ack: '1' }, disableBc: true });
    this.provider.messageHandlers[MessageType.ack] = (_encoder, decoder) => {
      let ack: Ack;
      try {
        ack = readAck(decoder);
      } catch (e) {
        console.warn('ignoring a malformed ack message', e);
        return;
      }
      const clock = ack.entries.find((x) => x.clientID === this.doc.clientID)?.clock;
      if (clock !== undefined) {
        this.tracker.acknowledge(clock);
        this.emit();
      }
    };
    this.provider.messageHandlers[MessageType.refused] = (_encoder, decoder) => {
      let reason: string;
      try {
        reason = readRefused(decoder).reason;
      } catch (e) {
        console.warn('ignoring a malformed refused message', e);
        return;
      }
      this.onRefused(reason);
    };
    this.provider.on('status', ({ status }) => {
      // Emitted as the socket opens, before the provider sends this client's state.
      if (status === 'connected') rejoinPresence(this.provider.awareness);
      this.emit();
    });
    this.provider.on('sync', () => this.emit());
    this.provider.on('connection-close', (event) => {
      if (event && TERMINAL.has(event.code)) {
        this.refused = CLOSE_REASONS[event.code as CloseCode] ?? `closed ${event.code}`;
        this.provider.disconnect();
      }
      this.emit();
    });
  }

  private emit(): void {
    this.onStatus({
      connected: this.provider.wsconnected,
      synced: this.provider.synced,
      refused: this.refused,
      waiting: this.tracker.waiting,
      localLoaded: this.localLoaded,
    });
  }

  /** Resolves once this session holds the server's state (its sync step 2 arrived); at once if it does. */
  whenSynced(): Promise<void> {
    if (this.provider.synced) return Promise.resolve();
    return new Promise((resolve) => {
      const onSync = (synced: boolean) => {
        if (!synced) return;
        this.provider.off('sync', onSync);
        resolve();
      };
      this.provider.on('sync', onSync);
    });
  }

  /**
   * Stops syncing and deletes this room's IndexedDB copy: after a refusal the replica holds
   * changes the server will never accept, so the next session must start from the server's state.
   * Returns the replica, still readable (see `unsavedChanges`); the caller destroys it.
   */
  async discard(): Promise<Y.Doc> {
    this.provider.destroy();
    await this.local.clearData();
    return this.doc;
  }

  /** Stops syncing and closes the local store; the IndexedDB copy is kept. */
  destroy(): void {
    this.provider.destroy();
    void this.local.destroy();
    this.doc.destroy();
  }
}
