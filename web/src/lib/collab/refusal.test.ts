import { describe, expect, it } from 'vitest';
import { RefusalCode } from '@seam/shared/protocol';
import { refusalMessage, unsavedHeading, unsavedLabel } from './refusal';
import type { UnsavedChange } from './unsaved';

const author = { id: 'u', name: 'Bo', color: '#000' };
const annotation: UnsavedChange = {
  kind: 'annotation',
  annotation: {
    id: 'a1', docId: 'd', from: 0, to: 3, quote: { prefix: '', exact: '%neg = f32[4]  negate(%p)', suffix: '' }, kind: 'note',
    body: 'written into the lock', author, createdAt: 1, resolved: false, replies: [{ id: 'r', body: 'x', author, createdAt: 2 }],
  },
};

describe('refusalMessage', () => {
  it('says plainly why a change was refused', () => {
    expect(refusalMessage('locked')).toBe('Your last change was refused: the room is locked. The room was reloaded from the server.');
    expect(refusalMessage('viewer')).toContain('viewers cannot change the room');
  });

  it('has its own words for every refusal code the server sends', () => {
    const generic = refusalMessage('gap');
    for (const code of Object.values(RefusalCode).filter((c) => c !== RefusalCode.gap && c !== RefusalCode.unknownParent)) {
      expect(refusalMessage(code), code).not.toBe(generic);
    }
    expect(refusalMessage(RefusalCode.clientTaken)).toContain('another writer');
  });

  it('reads an unknown reason code like a gap, never echoing the code', () => {
    expect(refusalMessage('<b>new-code</b>')).toBe(refusalMessage('gap'));
  });
});

describe('the list of what a refusal cost', () => {
  it('names each unsaved change with its text', () => {
    expect(unsavedLabel(annotation)).toBe('note on %neg = f32[4] negate(%p): “written into the lock” (with its reply)');
    expect(unsavedLabel({ kind: 'reply', annotationId: 'a1', on: '%fusion.3', reply: { id: 'r', body: 'me too', author, createdAt: 1 } }))
      .toBe('reply on %fusion.3: “me too”');
    expect(unsavedLabel({ kind: 'edit', annotationId: 'a1', replyId: 'r', on: '%fusion.3', body: 'fixed' })).toBe('edit of a reply on %fusion.3: “fixed”');
    expect(unsavedLabel({ kind: 'other', what: 'changes to the room notes' })).toBe('changes to the room notes');
  });

  it('says how many changes were lost, or that none was', () => {
    expect(unsavedHeading([])).toBe('Nothing you wrote was lost.');
    expect(unsavedHeading([annotation])).toBe('This was not saved:');
    expect(unsavedHeading([annotation, annotation])).toBe('These 2 changes were not saved:');
  });
});
