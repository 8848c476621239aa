import * as Y from 'yjs';
import { readAck } from '@seam/shared/protocol';
import { onAckMessage, type StockClient } from './clients';

/**
 * Measures write→ack on a client opened with `ack=1`: each write is durable once an ack entry for
 * the client's own clientID reaches the clock the write ended at.
 */
export class AckTracker {
  private readonly pending: { clock: number; sentAt: number }[] = [];
  /** Milliseconds from each acknowledged write to its ack, in ack order. */
  readonly latencies: number[] = [];

  constructor(private readonly client: StockClient) {
    onAckMessage(client, (decoder) => {
      const now = performance.now();
      const mine = readAck(decoder).entries.find((e) => e.clientID === client.doc.clientID);
      if (!mine) return;
      while (this.pending.length > 0 && (this.pending[0]?.clock ?? Infinity) <= mine.clock) {
        this.latencies.push(now - (this.pending.shift()?.sentAt ?? now));
      }
    });
  }

  /** Records a write made at `sentAt` (performance.now()), just after its transaction. */
  wrote(sentAt: number): void {
    this.pending.push({ clock: Y.getState(this.client.doc.store, this.client.doc.clientID), sentAt });
  }

  /** Writes still waiting for their ack. */
  get unacknowledged(): number {
    return this.pending.length;
  }
}
