import { describe, expect, it } from 'vitest';
import { validResultBody } from './result-body';

const bandwidth = { method: 'jit(x + 1) over f32[67108864]', bytes: 536_870_912, calls: 8, trials: 5, seconds: 0.016, bytesPerSecond: 3.3e10, bestBytesPerSecond: 3.4e10, deviceKind: 'cpu', nameplateBytesPerSecond: null, fractionOfNameplate: null };
const body = (provenance: object) => ({ ok: true, provenance: { runner: 'cpu-1', ...provenance }, artifacts: [] });

describe('a runner result with a measured bandwidth', () => {
  it('keeps the measurement in the provenance', () => {
    const r = validResultBody(body({ bandwidth }));
    expect(typeof r).toBe('object');
    expect(r).toMatchObject({ provenance: { runner: 'cpu-1', bandwidth } });
  });

  it('refuses one out of bounds, naming the field', () => {
    expect(validResultBody(body({ bandwidth: { ...bandwidth, bytesPerSecond: -1 } }))).toMatch(/provenance\.bandwidth\.bytesPerSecond/);
    expect(validResultBody(body({ bandwidth: { ...bandwidth, fractionOfNameplate: 1e9 } }))).toMatch(/provenance\.bandwidth\.fractionOfNameplate/);
  });
});
