import { describe, expect, it } from 'vitest';
import { readAgentMessage, readServerMessage, writeRunnerMessage } from './runner';

describe('runner protocol frames', () => {
  it('round-trip through write and read', () => {
    const caps = { platform: 'tpu', deviceKind: 'TPU v5 lite', deviceCount: 8, jax: '0.10.2', jaxlib: '0.10.2', python: '3.11.7' };
    expect(readAgentMessage(writeRunnerMessage({ type: 'hello', name: 'v5e', capabilities: caps, agent: 'a' }))).toEqual({ type: 'hello', name: 'v5e', capabilities: caps, agent: 'a' });
    expect(readAgentMessage(writeRunnerMessage({ type: 'heartbeat', jobs: [{ jobId: 'j', attempt: 2 }] }))).toEqual({ type: 'heartbeat', jobs: [{ jobId: 'j', attempt: 2 }] });
    expect(readServerMessage(writeRunnerMessage({ type: 'cancel', jobId: 'j', attempt: 1, reason: 'cancelled' }))).toEqual({ type: 'cancel', jobId: 'j', attempt: 1, reason: 'cancelled' });
  });

  it('read malformed frames as null instead of throwing', () => {
    for (const f of ['', '{', 'null', '[]', '{"type":"job"}', '{"type":"heartbeat","jobs":[{"jobId":1}]}', '{"type":"hello","name":""}', '{"type":"nope"}']) {
      expect(readAgentMessage(f)).toBeNull();
      expect(readServerMessage(f)).toBeNull();
    }
  });

  it('cuts an over-long phase line', () => {
    const m = readAgentMessage(JSON.stringify({ type: 'status', jobId: 'j', attempt: 1, phase: 'x'.repeat(1000) }));
    expect(m?.type === 'status' && m.phase.length).toBe(200);
  });
});
