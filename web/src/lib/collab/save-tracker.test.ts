import { describe, expect, it } from 'vitest';
import { SaveTracker, saveLabel, saveState } from './save-tracker';

const up = { online: true, connected: true, synced: true, refused: null };

describe('SaveTracker', () => {
  it('counts local changes until the persisted clock covers them', () => {
    const t = new SaveTracker();
    t.recordLocal(1);
    t.recordLocal(3);
    t.recordLocal(7);
    expect(t.waiting).toBe(3);
    t.acknowledge(3);
    expect(t.waiting).toBe(1);
    t.acknowledge(2);
    expect(t.waiting).toBe(1);
    t.acknowledge(7);
    expect(t.waiting).toBe(0);
  });
  it('ignores changes at or below what is already durable', () => {
    const t = new SaveTracker();
    t.acknowledge(5);
    t.recordLocal(4);
    expect(t.waiting).toBe(0);
  });
});

describe('saveState', () => {
  it('says saved only when connected, synced and nothing waits', () => {
    expect(saveState(up, 0)).toEqual({ kind: 'saved' });
    expect(saveState(up, 1)).toEqual({ kind: 'saving', waiting: 1 });
    expect(saveState({ ...up, synced: false }, 0)).toEqual({ kind: 'saving', waiting: 0 });
  });
  it('is honest offline and while reconnecting', () => {
    expect(saveLabel(saveState({ ...up, online: false }, 3))).toBe('offline — 3 changes waiting');
    expect(saveLabel(saveState({ ...up, online: false }, 1))).toBe('offline — 1 change waiting');
    expect(saveLabel(saveState({ ...up, connected: false }, 0))).toBe('connecting');
    expect(saveLabel(saveState({ ...up, refused: 'token-revoked' }, 0))).toBe('disconnected — token-revoked');
  });
});
