import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { indexHlo } from './index';

const read = (path: string): string => readFileSync(new URL(`../../../../test/fixtures/${path}`, import.meta.url), 'utf8');

describe('custom-call kernels in the HLO index', () => {
  it('lists a Pallas TPU kernel (tpu_custom_call) with its name, operands and result, and finds the spill of its output', () => {
    const { index, diagnostics } = indexHlo(read('xla-dump/tpu/pallas-matmul.hlo'));
    expect(diagnostics).toEqual([]);
    expect(index.kernels).toEqual([{
      name: 'custom-call.3', scope: 'main.6', line: 11, from: expect.any(Number), to: expect.any(Number), target: 'tpu_custom_call', kernelName: 'matmul_kernel',
      operands: [{ name: 'Arg_0.1', type: 'f32[1024,512]', bytes: 2097152 }, { name: 'Arg_1.2', type: 'f32[512,256]', bytes: 524288 }],
      results: [{ type: 'f32[1024,256]', bytes: 1048576 }], inputBytes: 2621440, outputBytes: 1048576,
    }]);
    expect(index.spills.map((s) => [s.producer, s.bytes, s.consumers])).toEqual([['custom-call.3', 1048576, ['multiply_fusion']]]);
  });

  it('reads a kernel name printed in the backend config, quoted or bare', () => {
    const hlo = (config: string) => `HloModule m\n\nENTRY e {\n  p = f32[8]{0} parameter(0)\n  ROOT k = f32[8]{0} custom-call(p), custom_call_target="tpu_custom_call", backend_config=${config}\n}\n`;
    expect(indexHlo(hlo('"{\\"custom_call_config\\": {}, \\"kernel_name\\": \\"flash_fwd\\"}"')).index.kernels?.[0]?.kernelName).toBe('flash_fwd');
    expect(indexHlo(hlo('{"name":"gemm_kernel","operation_queue_id":"0"}')).index.kernels?.[0]?.kernelName).toBe('gemm_kernel');
    expect(indexHlo(hlo('{}')).index.kernels?.[0]).not.toHaveProperty('kernelName');
  });

  it('lists an FFI kernel with a tuple result per element, and spill detection follows its outputs through get-tuple-element', () => {
    const { index } = indexHlo(read('corpus/hlo/xla__hlo_llama31_70b_bf16_16x8.hlo'));
    const fwd = index.kernels?.find((k) => k.name === 'te_fused_attn_forward_ffi.45');
    expect(fwd).toMatchObject({ target: 'te_fused_attn_forward_ffi', line: 249, inputBytes: 335544352, outputBytes: 272629840 });
    expect(fwd?.operands).toHaveLength(13);
    expect(fwd?.operands[0]).toEqual({ name: 'sharding_constraint.41', type: 'bf16[2,8192,64,128]', bytes: 268435456 });
    expect(fwd?.results.map((r) => r.bytes)).toEqual([268435456, 4194304, 32, 48]);
    expect(index.kernels?.map((k) => k.target).sort()).toEqual(['te_fused_attn_backward_ffi', 'te_fused_attn_forward_ffi', 'te_fused_attn_forward_ffi']);
    const spill = index.spills.find((s) => s.producer === 'te_fused_attn_forward_ffi.45');
    expect(spill).toMatchObject({ outputIndex: [0], bytes: 268435456 });
  });
});
