import type { Participant } from './presence';

/** Someone else in the room as the presence list shows them: an annotator on `d1`, hand down, not following; `extra` overrides. For tests. */
export const participant = (clientId: number, name: string, extra: Partial<Participant> = {}): Participant => ({
  clientId,
  id: `u-${name}`,
  name,
  color: '#1971c2',
  role: 'annotator',
  docId: 'd1',
  self: false,
  hand: null,
  line: null,
  following: false,
  ...extra,
});
