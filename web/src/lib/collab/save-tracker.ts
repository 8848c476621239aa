/** What the save indicator says. `saved` only once the server has acknowledged every local change as durable. */
export type SaveState =
  | { readonly kind: 'saved' }
  | { readonly kind: 'saving'; readonly waiting: number }
  | { readonly kind: 'offline'; readonly waiting: number }
  | { readonly kind: 'connecting'; readonly waiting: number }
  | { readonly kind: 'refused'; readonly reason: string };

/**
 * Counts this client's changes that the server has not yet acknowledged as durable. A change is
 * the client's own clock after a local transaction; the server's acknowledgement carries the
 * persisted clock for this client, and every change at or below it is durable.
 */
export class SaveTracker {
  private pending: number[] = [];
  private persisted = 0;

  /** Records a local change that brought this client's clock to `clock`. */
  recordLocal(clock: number): void {
    if (clock > this.persisted) this.pending.push(clock);
  }

  /** Applies the server's persisted clock for this client; acknowledgements never go backwards. */
  acknowledge(clock: number): void {
    if (clock <= this.persisted) return;
    this.persisted = clock;
    this.pending = this.pending.filter((c) => c > clock);
  }

  /** Local changes not yet durable. */
  get waiting(): number {
    return this.pending.length;
  }

  /** The persisted clock the server last acknowledged for this client. */
  get persistedClock(): number {
    return this.persisted;
  }
}

/** The connection facts the indicator reads. */
export interface ConnectionFacts {
  readonly online: boolean;
  readonly connected: boolean;
  readonly synced: boolean;
  readonly refused: string | null;
}

/** Decides the indicator from the connection and the waiting count. */
export function saveState(c: ConnectionFacts, waiting: number): SaveState {
  if (c.refused) return { kind: 'refused', reason: c.refused };
  if (!c.online || !c.connected) return c.online ? { kind: 'connecting', waiting } : { kind: 'offline', waiting };
  if (!c.synced || waiting > 0) return { kind: 'saving', waiting };
  return { kind: 'saved' };
}

/** The indicator's words, e.g. "offline — 3 changes waiting". */
export function saveLabel(s: SaveState): string {
  switch (s.kind) {
    case 'saved':
      return 'saved';
    case 'saving':
      return 'saving…';
    case 'refused':
      return `disconnected — ${s.reason}`;
    case 'offline':
    case 'connecting': {
      const head = s.kind === 'offline' ? 'offline' : 'connecting';
      if (s.waiting === 0) return head;
      return `${head} — ${s.waiting} ${s.waiting === 1 ? 'change' : 'changes'} waiting`;
    }
  }
}
