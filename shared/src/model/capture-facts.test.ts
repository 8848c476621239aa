import { describe, expect, it } from 'vitest';
import { captureFigures, deviceLabel, provenanceFacts } from './capture-facts';

describe('capture figures', () => {
  it('reads FLOPs and bytes from the cost analysis and sizes from the memory analysis the harness sends', () => {
    const analyses = {
      cost: { flops: 563360, 'bytes accessed': 38464, transcendentals: 0, 'utilization0{}': 4 },
      memory: { argument_size_in_bytes: 20736, output_size_in_bytes: 64, temp_size_in_bytes: 8832, alias_size_in_bytes: 0 },
    };
    expect(captureFigures(analyses)).toEqual({ flops: 563360, bytesAccessed: 38464, transcendentals: 0, argumentBytes: 20736, outputBytes: 64, tempBytes: 8832 });
  });

  it('leaves out whatever is not a finite count, and a flat `flops` the harness never sends', () => {
    expect(captureFigures(undefined)).toEqual({});
    expect(captureFigures({ flops: 5 })).toEqual({});
    expect(captureFigures({ cost: [{ flops: 1 }], memory: 'x' })).toEqual({});
    expect(captureFigures({ cost: { flops: -1, 'bytes accessed': Infinity, transcendentals: '3' }, memory: { temp_size_in_bytes: null } })).toEqual({});
  });
});

describe('capture provenance', () => {
  it('names device, versions, flags and the measured bandwidth with its nameplate fraction', () => {
    expect(provenanceFacts({
      runner: 'tpu-v5e-0', platform: 'tpu', deviceKind: 'TPU v5 lite', deviceCount: 4, jax: '0.10.2', jaxlib: '0.10.2', python: '3.11.7', xlaFlags: ' ',
      bandwidth: { method: 'x', bytes: 1, calls: 1, trials: 1, seconds: 1, bytesPerSecond: 700e9, bestBytesPerSecond: 720e9, deviceKind: 'TPU v5 lite', nameplateBytesPerSecond: 819e9, fractionOfNameplate: 0.8547 },
    })).toEqual([
      { label: 'runner', value: 'tpu-v5e-0' },
      { label: 'device', value: 'tpu · TPU v5 lite ×4' },
      { label: 'versions', value: 'JAX 0.10.2 · jaxlib 0.10.2 · Python 3.11.7' },
      { label: 'XLA flags', value: 'none' },
      { label: 'bandwidth', value: '700.00 GB/s measured copy (best 720.00 GB/s, 85% of the 819.00 GB/s nameplate)' },
    ]);
  });

  it('leaves out what a runner did not say', () => {
    expect(provenanceFacts({ runner: 'r' })).toEqual([{ label: 'runner', value: 'r' }]);
    expect(deviceLabel({ platform: 'cpu', deviceKind: 'cpu', deviceCount: 1 })).toBe('cpu');
    expect(deviceLabel({})).toBeNull();
  });
});
