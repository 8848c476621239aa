import { describe, expect, it } from 'vitest';
import { readJobNotice, writeJobNotice, type JobNotice } from './job-signal';

describe('job notices', () => {
  it('reads back every notice it writes', () => {
    const notices: JobNotice[] = [{ kind: 'queued' }, { kind: 'cancel', jobId: 'cap_x', attempt: 2, runnerId: 'rt_a/cpu-a' }];
    for (const n of notices) expect(readJobNotice(writeJobNotice(n))).toEqual(n);
  });

  it('reads nothing from a payload that is not a well-formed notice', () => {
    const bad = [
      undefined, '', '{', 'null', '[]', '"queued"', '{"kind":"other"}', '{"kind":"cancel","jobId":"cap_x","attempt":0,"runnerId":"r"}',
      '{"kind":"cancel","jobId":"cap_x","attempt":1.5,"runnerId":"r"}', '{"kind":"cancel","jobId":7,"attempt":1,"runnerId":"r"}',
      '{"kind":"cancel","jobId":"cap_x","attempt":1}', JSON.stringify({ kind: 'queued', pad: 'x'.repeat(600) }),
    ];
    for (const p of bad) expect(readJobNotice(p)).toBeNull();
  });
});
