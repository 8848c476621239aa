import { RoomKey } from '@seam/shared/model';
import type { RaisedHand } from '@seam/shared/protocol';
import type { RoomState } from '../../state/room.svelte';
import { handQueue, isLowered, staleLowered, type LoweredHands, type QueuedHand } from './hand-queue';

/**
 * Raised hands in one room. Each person's hand travels in their own awareness state (`hand`), so
 * nobody can raise or lower another's; the owner lowers a hand by writing its `raisedAt` under the
 * person's id in the owner-only `hands` map, the person's client takes the hand down on seeing it,
 * and the owner's client then drops the mark (see `staleLowered`). Create it during a component's
 * setup: it watches the room with effects.
 */
export class HandsState {
  /** The owner's lowered marks, as the room document holds them. */
  lowered = $state.raw<LoweredHands>(new Map());
  /** This person's hand, `null` when down. */
  mine = $state.raw<RaisedHand | null>(null);
  /** Set when the owner lowered this person's hand (their question was answered); cleared by raising it again. */
  answered = $state(false);
  /** The raised hands the owner has not lowered, oldest first. */
  readonly queue: readonly QueuedHand[];

  constructor(private readonly room: RoomState) {
    this.queue = $derived(handQueue(room.participants, this.lowered));
    $effect(() => {
      const s = room.session;
      if (!s) return;
      const m = s.doc.getMap<unknown>(RoomKey.hands);
      const read = () => {
        const next = new Map<string, number>();
        for (const [k, v] of m) if (typeof v === 'number') next.set(k, v);
        this.lowered = next;
      };
      m.observe(read);
      read();
      return () => m.unobserve(read);
    });
    // The owner lowered this person's hand: it comes down here too.
    $effect(() => {
      const hand = this.mine;
      if (hand && isLowered(hand, room.me.id, this.lowered)) {
        this.mine = null;
        this.answered = true;
        room.publish({ hand: null });
      }
    });
    // Marks that did their work go, so the map stays as small as the hands up.
    $effect(() => {
      const s = room.session;
      if (!s || !room.isOwner) return;
      const stale = staleLowered(this.lowered, room.participants);
      if (stale.length === 0) return;
      const m = s.doc.getMap<unknown>(RoomKey.hands);
      s.doc.transact(() => stale.forEach((k) => m.delete(k)));
    });
  }

  /** Raises this person's hand, or takes it down. */
  toggle(): void {
    this.mine = this.mine ? null : { raisedAt: Date.now() };
    this.answered = false;
    this.room.publish({ hand: this.mine });
  }

  /** Lowers someone's hand once answered (owner only; the server refuses anyone else's write). */
  lower(userId: string, raisedAt: number): void {
    const s = this.room.session;
    if (!s || !this.room.isOwner || !userId) return;
    s.doc.getMap<unknown>(RoomKey.hands).set(userId, raisedAt);
  }
}
