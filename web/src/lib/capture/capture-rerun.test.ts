import { describe, expect, it } from 'vitest';
import { CaptureRequestSchema, type CaptureEntry } from '@seam/shared/model';
import { carriedLabel, rerunRequest, versionLabel } from './capture-rerun';

const job: CaptureEntry = {
  id: 'cap_abc', status: 'done', attempt: 1, entry: 'mlp', args: [{ shape: [32, 64], dtype: 'float32' }], capture: ['jaxpr', 'hlo-opt'],
  requestedBy: 'owner', createdAt: 1, updatedAt: 2, documents: ['d1'], runner: 'local', options: { xlaFlags: '--xla_cpu_use_thunk_runtime=true', timeoutS: 60, repeats: 5 },
};

describe('Run again', () => {
  it('re-runs the program as it now reads with the capture’s entry, specs, layers, runner and options, naming the capture', () => {
    const r = rerunRequest(job, 'def mlp(x):\n    return x\n');
    expect('request' in r && CaptureRequestSchema.parse(r.request)).toEqual({
      program: 'def mlp(x):\n    return x\n', entry: 'mlp', args: [{ shape: [32, 64], dtype: 'float32' }], capture: ['jaxpr', 'hlo-opt'], runner: 'local',
      options: { xlaFlags: '--xla_cpu_use_thunk_runtime=true', timeoutS: 60, repeats: 5 }, previous: 'cap_abc',
    });
    expect(rerunRequest(job, '  \n')).toEqual({ error: 'The program is empty.' });
  });

  it('labels a version and what was carried', () => {
    expect(versionLabel(job)).toBeNull();
    expect(versionLabel({ ...job, versionOf: 'cap_a', version: 2 })).toBe('v2 of mlp');
    expect(carriedLabel({ annotations: 1, detached: 0, notCarried: 0 })).toBe('1 annotation carried, 0 detached');
    expect(carriedLabel({ annotations: 1000, detached: 3, notCarried: 20 })).toBe('1000 annotations carried, 3 detached, 20 not carried');
  });
});
