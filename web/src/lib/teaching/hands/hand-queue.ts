import type { RaisedHand } from '@seam/shared/protocol';
import type { Participant } from '../../collab/presence';

/**
 * The owner's lowered hands, as the room document's `hands` map holds them: user id → the
 * `raisedAt` of the hand that was lowered. A hand raised again later has a new time and is up.
 */
export type LoweredHands = ReadonlyMap<string, number>;

/** Most lowered marks the owner keeps; past it the oldest go first (one per person is the norm). */
export const MAX_LOWERED = 200;

/** One raised hand in the owner's queue: who, since when, and where they are. */
export interface QueuedHand {
  readonly clientId: number;
  readonly userId: string;
  readonly name: string;
  readonly color: string;
  readonly raisedAt: number;
  readonly docId: string | null;
  readonly line: number | null;
}

/** Whether `hand`, raised by user `userId`, is one the owner lowered. */
export function isLowered(hand: RaisedHand, userId: string, lowered: LoweredHands): boolean {
  return lowered.get(userId) === hand.raisedAt;
}

/** The raised hands not yet lowered, oldest first (then by name): the order the owner answers them. */
export function handQueue(people: readonly Participant[], lowered: LoweredHands): QueuedHand[] {
  const out: QueuedHand[] = [];
  for (const p of people) {
    if (!p.hand || isLowered(p.hand, p.id, lowered)) continue;
    out.push({ clientId: p.clientId, userId: p.id, name: p.name, color: p.color, raisedAt: p.hand.raisedAt, docId: p.docId, line: p.line });
  }
  return out.sort((a, b) => a.raisedAt - b.raisedAt || a.name.localeCompare(b.name) || a.clientId - b.clientId);
}

/**
 * The lowered marks the owner no longer needs, so that the map never grows without bound: a mark
 * whose person is here with no hand up or a hand raised since (their client has taken it down),
 * and past {@link MAX_LOWERED} marks the oldest. Marks of people who are away stay until they return.
 */
export function staleLowered(lowered: LoweredHands, people: readonly Participant[]): string[] {
  const here = new Map<string, RaisedHand | null>();
  for (const p of people) if (p.id && (p.hand || !here.has(p.id))) here.set(p.id, p.hand);
  const stale = new Set<string>();
  for (const [userId, at] of lowered) {
    const hand = here.get(userId);
    if (hand !== undefined && hand?.raisedAt !== at) stale.add(userId);
  }
  const kept = [...lowered].filter(([id]) => !stale.has(id)).sort((a, b) => a[1] - b[1]);
  for (const [id] of kept.slice(0, Math.max(0, kept.length - MAX_LOWERED))) stale.add(id);
  return [...stale];
}
