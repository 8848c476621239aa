import { describe, expect, it } from 'vitest';
import { CaptureRequestSchema, DEFAULT_CAPTURE, DEFAULT_TIMEOUT_S, formatArgSpec, isFinalStatus, parseArgSpec } from './jobs';

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
