import { describe, expect, it } from 'vitest';
import { readCaptureEntry } from './capture-doc';

const base = { status: 'done', entry: 'mlp', args: [], documents: [], capture: ['jaxpr'], attempt: 1, requestedBy: 'owner', createdAt: 1, updatedAt: 2 };

describe('readCaptureEntry', () => {
  it('keeps a re-run’s version and carried counts when they are well formed', () => {
    const e = readCaptureEntry('cap_b', { ...base, versionOf: 'cap_a', version: 2, carried: { annotations: 3, detached: 1, notCarried: 0 } });
    expect(e).toMatchObject({ versionOf: 'cap_a', version: 2, carried: { annotations: 3, detached: 1, notCarried: 0 } });
  });

  it('drops a malformed version or carried mark and keeps the rest of the entry', () => {
    for (const bad of [
      { versionOf: 'cap_a', version: 1 },
      { versionOf: 'cap_a', version: 2.5 },
      { versionOf: 'cap_b', version: 2 },
      { versionOf: 42, version: 2 },
      { versionOf: 'cap_a' },
    ]) {
      const e = readCaptureEntry('cap_b', { ...base, ...bad });
      expect(e?.status).toBe('done');
      expect(e && ('versionOf' in e || 'version' in e)).toBe(false);
    }
    for (const carried of [{ annotations: 1, detached: 2, notCarried: 0 }, { annotations: -1, detached: 0, notCarried: 0 }, { annotations: '3', detached: 0, notCarried: 0 }, 'x']) {
      expect(readCaptureEntry('cap_b', { ...base, carried })?.carried).toBeUndefined();
    }
  });
});
