import type { Annotation } from '@seam/shared/model';

/** A one-character note on document `d` by a fixed author, for sync tests that only need some annotation. */
export function note(id: string, body = 'b'): Annotation {
  return {
    id, docId: 'd', from: 0, to: 1, quote: { prefix: '', exact: 'x', suffix: '' }, kind: 'note', body,
    author: { id: 'u', name: 'U', color: '#000000' }, createdAt: 1, resolved: false, replies: [],
  };
}
