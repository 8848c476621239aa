import { describe, expect, it } from 'vitest';
import { CaptureRequestSchema, DEFAULT_CAPTURE, DEFAULT_TIMEOUT_S, formatArgSpec, isFinalStatus, MeasuredBandwidthSchema, parseArgSpec } from './jobs';

describe('capture requests', () => {
  it('fill in the documented defaults', () => {
    const r = CaptureRequestSchema.parse({ program: 'x = 1', entry: 'f', args: [] });
    expect(r.capture).toEqual(DEFAULT_CAPTURE);
    expect(r.options).toEqual({ xlaFlags: '', timeoutS: DEFAULT_TIMEOUT_S, repeats: 3 });
  });

  it('refuse what a runner cannot run, saying where', () => {
    const bad = CaptureRequestSchema.safeParse({ program: 'x', entry: 'os.system', args: [{ shape: [-1], dtype: 'float32' }], capture: ['everything'], options: { xlaFlags: 'a\nb', timeoutS: 0 } });
    expect(bad.success).toBe(false);
    const paths = bad.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['entry', 'args.0.shape.0', 'capture.0', 'options.xlaFlags', 'options.timeoutS']));
  });
});

describe('argument specs as typed in the Capture panel', () => {
  it('read short and long dtype names and scalars', () => {
    expect(parseArgSpec('bf16[8192, 128]')).toEqual({ shape: [8192, 128], dtype: 'bfloat16' });
    expect(parseArgSpec('float32[]')).toEqual({ shape: [], dtype: 'float32' });
    expect(parseArgSpec(' s32[4,4] ')).toEqual({ shape: [4, 4], dtype: 'int32' });
  });

  it('return a message for text that is not a spec, without throwing', () => {
    expect(parseArgSpec('bf16')).toHaveProperty('error');
    expect(parseArgSpec('q8[4]')).toEqual({ error: 'unknown dtype "q8"' });
    expect(parseArgSpec('f32[1.5]')).toHaveProperty('error');
  });

  it('format back to the short form', () => {
    expect(formatArgSpec({ shape: [8192, 128], dtype: 'bfloat16' })).toBe('bf16[8192,128]');
  });
});

describe('job status', () => {
  it('knows which statuses are final', () => {
    expect(['queued', 'running', 'done', 'failed', 'cancelled'].map((s) => isFinalStatus(s as never))).toEqual([false, false, true, true, true]);
  });
});

describe('measured bandwidth in the provenance of a capture', () => {
  const measured = { method: 'jit(x + 1) over f32[67108864]', bytes: 536_870_912, calls: 8, trials: 5, seconds: 0.016, bytesPerSecond: 33_554_432_000, bestBytesPerSecond: 3.4e10, deviceKind: 'cpu', nameplateBytesPerSecond: null, fractionOfNameplate: null };

  it('keeps a measurement within bounds, with or without a nameplate', () => {
    expect(MeasuredBandwidthSchema.parse(measured)).toEqual(measured);
    const tpu = { ...measured, deviceKind: 'TPU v6 lite', nameplateBytesPerSecond: 1.64e12, fractionOfNameplate: 0.785 };
    expect(MeasuredBandwidthSchema.parse(tpu)).toEqual(tpu);
  });

  it('refuses zero, negative, absurd and missing figures, saying which', () => {
    const bad = MeasuredBandwidthSchema.safeParse({ ...measured, bytesPerSecond: 0, seconds: -1, bytes: 1.5, nameplateBytesPerSecond: 1e20, fractionOfNameplate: undefined });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues.map((i) => i.path.join('.'))).toEqual(expect.arrayContaining(['bytesPerSecond', 'seconds', 'bytes', 'nameplateBytesPerSecond', 'fractionOfNameplate']));
    expect(MeasuredBandwidthSchema.safeParse({ ...measured, bytesPerSecond: Number.POSITIVE_INFINITY }).success).toBe(false);
  });
});
