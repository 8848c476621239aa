import { describe, expect, it } from 'vitest';
import { agentMessageProblem, readAgentMessage, readServerMessage, RUNNER_LIMITS, writeRunnerMessage } from './runner';

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

  it('names the first capability, list or id past its bound', () => {
    const caps = { platform: 'cpu', deviceKind: 'cpu', deviceCount: 1, jax: '0.10.2', jaxlib: '0.10.2', python: '3.11.7' };
    const hello = (c: object, agent = 'a') => agentMessageProblem({ type: 'hello', name: 'n', capabilities: { ...caps, ...c }, agent });
    expect(hello({})).toBeNull();
    expect(hello({ python: 'p'.repeat(RUNNER_LIMITS.text + 1) })).toBe('capabilities.python is longer than 128 characters');
    expect(hello({ deviceCount: -1 })).toMatch(/deviceCount must be an integer/);
    expect(hello({}, 'a'.repeat(200))).toBe('agent is longer than 128 characters');
    expect(hello({ isolation: { layers: Array.from({ length: 65 }, () => 'x') } })).toBe('capabilities.isolation.layers has more than 64 entries');
    expect(hello({ isolation: { layers: ['x'.repeat(129)] } })).toBe('capabilities.isolation.layers.0 is longer than 128 characters');
    expect(agentMessageProblem({ type: 'status', jobId: 'j'.repeat(129), attempt: 1, phase: 'x' })).toMatch(/job id/);
    expect(agentMessageProblem({ type: 'heartbeat', jobs: Array.from({ length: 65 }, () => ({ jobId: 'j', attempt: 1 })) })).toMatch(/at most 64 jobs/);
  });
});
