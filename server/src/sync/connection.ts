import { CLOSE_REASONS, type CloseCode } from '@seam/shared/protocol';
import type { Role } from '@seam/shared/model';
import type { Limits } from '../config';
import type { Metrics } from '../metrics';
import { ItemBudget } from './item-budget';
import { TokenBucket } from './rate';

/**
 * What the sync core needs from a transport (hocuspocus style): send a binary frame, close with
 * a code. The WebSocket adapter, and tests, provide it.
 */
export interface SocketLike {
  send(data: Uint8Array): void;
  close(code: number, reason: string): void;
}

/** One client on one room: its role, its token (by hash), its rate buckets and ack bookkeeping. */
export class Connection {
  /** Yjs client IDs whose structs this socket has sent; their clocks go into acks. */
  readonly authored = new Set<number>();
  /** Update-bearing sync messages (step 2 and update) received so far: the ack's `seq`. */
  received = 0;
  closed = false;
  readonly syncBucket: TokenBucket;
  readonly awarenessBucket: TokenBucket;
  /** Yjs structs plus deleted ranges this socket may still send (per update and per second). */
  readonly items: ItemBudget;

  constructor(
    private readonly socket: SocketLike,
    readonly role: Role,
    /** Hex SHA-256 of the token this socket authenticated with. */
    readonly tokenHash: string,
    /** True when the socket connected with `?ack=1`. */
    readonly wantsAck: boolean,
    limits: Limits,
    private readonly metrics: Metrics,
  ) {
    this.syncBucket = new TokenBucket(limits.updatesPerSecond, limits.updateBurst);
    this.awarenessBucket = new TokenBucket(limits.awarenessPerSecond, limits.awarenessPerSecond * 4);
    this.items = new ItemBudget(limits);
  }

  /** Sends one frame unless the socket is closed. */
  send(data: Uint8Array): void {
    if (this.closed) return;
    this.metrics.bytesOut.inc(data.length);
    this.socket.send(data);
  }

  /** Closes with a named code, once. */
  close(code: CloseCode): void {
    if (this.closed) return;
    this.closed = true;
    this.metrics.closed.inc({ code: String(code) });
    this.socket.close(code, CLOSE_REASONS[code]);
  }
}
