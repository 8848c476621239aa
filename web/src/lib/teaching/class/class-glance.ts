import type { Annotation } from '@seam/shared/model';
import type { RaisedHand } from '@seam/shared/protocol';
import type { Participant } from '../../collab/presence';
import { isLowered, type LoweredHands } from '../hands/hand-queue';

/** One person as the owner's class panel lists them. */
export interface ClassRow {
  readonly clientId: number;
  readonly name: string;
  readonly color: string;
  readonly role: Participant['role'];
  readonly docId: string | null;
  readonly line: number | null;
  /** Following the presenter now: someone presents, it is not them, and they follow. */
  readonly following: boolean;
  /** Their hand when it is up and not yet lowered. */
  readonly hand: RaisedHand | null;
}

/**
 * Everyone but the owner looking, for the class at a glance: raised hands first (oldest first),
 * then the rest by name. `presenter` is the presenting client, `null` when nobody presents.
 */
export function classRows(people: readonly Participant[], presenter: number | null, lowered: LoweredHands): ClassRow[] {
  const rows = people
    .filter((p) => !p.self)
    .map((p) => ({
      clientId: p.clientId,
      name: p.name,
      color: p.color,
      role: p.role,
      docId: p.docId,
      line: p.line,
      following: presenter !== null && p.clientId !== presenter && p.following,
      hand: p.hand && !isLowered(p.hand, p.id, lowered) ? p.hand : null,
    }));
  const up = (r: ClassRow) => r.hand?.raisedAt ?? Number.POSITIVE_INFINITY;
  return rows.sort((a, b) => up(a) - up(b) || a.name.localeCompare(b.name) || a.clientId - b.clientId);
}

/** The room's open questions (question annotations not resolved), oldest first. */
export function openQuestions(annotations: readonly Annotation[]): Annotation[] {
  return annotations.filter((a) => a.kind === 'question' && !a.resolved).sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
}
