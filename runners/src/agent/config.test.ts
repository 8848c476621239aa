import { describe, expect, it } from 'vitest';
import { parseCli } from './config';
import { serverUrls } from './agent';

describe('seam-runner options', () => {
  it('reads the flags, with the defaults documented in the usage', () => {
    const o = parseCli(['--server', 'https://seam.example.org', '--token=srn_x', '--name', 'tpu-v5e-0', '--memory-limit', '0'], {});
    expect(o).toMatchObject({ server: 'https://seam.example.org', token: 'srn_x', name: 'tpu-v5e-0', memoryBytes: 0, maxOutputBytes: 16 << 20, network: false });
  });

  it('takes the token from SEAM_RUNNER_TOKEN so it need not appear in a process list', () => {
    expect(parseCli(['--server', 'http://127.0.0.1:8080'], { SEAM_RUNNER_TOKEN: 'srn_env' }).token).toBe('srn_env');
  });

  it('refuses a missing server, an unknown flag and a bad byte count, naming them', () => {
    expect(() => parseCli(['--token', 't'], {})).toThrow(/--server and --token are required/);
    expect(() => parseCli(['--server', 'http://x', '--token', 't', '--gpu'], {})).toThrow(/unknown option --gpu/);
    expect(() => parseCli(['--server', 'http://x', '--token', 't', '--max-output', '-1'], {})).toThrow(/--max-output must be a byte count/);
  });

  it('reads the sandbox options from flags or, for the local runner, from the environment, with their defaults', () => {
    const base = ['--server', 'http://x', '--token', 't'];
    expect(parseCli(base, {})).toMatchObject({
      requireSandbox: false, checkSandbox: false, sandboxUser: 'seam-sandbox', jobMemoryBytes: 8 * 2 ** 30, jobPids: 1024, jobCpus: 0, scratchBytes: 2 ** 30,
    });
    const env = { SEAM_REQUIRE_SANDBOX: '1', SEAM_SANDBOX_USER: 'capture', SEAM_JOB_MEMORY: '1024', SEAM_JOB_PIDS: '64', SEAM_JOB_CPUS: '1.5', SEAM_SCRATCH_QUOTA: '4096', SEAM_BWRAP: '/opt/bwrap' };
    expect(parseCli(base, env)).toMatchObject({ requireSandbox: true, sandboxUser: 'capture', jobMemoryBytes: 1024, jobPids: 64, jobCpus: 1.5, scratchBytes: 4096, bwrap: '/opt/bwrap' });
    expect(parseCli([...base, '--job-pids', '8', '--require-sandbox'], { SEAM_JOB_PIDS: '64' })).toMatchObject({ jobPids: 8, requireSandbox: true });
    expect(() => parseCli([...base, '--job-cpus', '-1'], {})).toThrow(/--job-cpus must be a number of cores/);
    expect(() => parseCli(base, { SEAM_SCRATCH_QUOTA: 'lots' })).toThrow(/--scratch-quota must be a byte count, got "lots"/);
  });

  it('needs no server or token to check the sandbox', () => {
    expect(parseCli(['--check-sandbox'], {})).toMatchObject({ checkSandbox: true, server: '', token: '' });
  });

  it('derives the socket and HTTP URLs from either scheme', () => {
    expect(serverUrls('https://seam.example.org/')).toEqual({ http: 'https://seam.example.org', ws: 'wss://seam.example.org/runner' });
    expect(serverUrls('ws://127.0.0.1:8080')).toEqual({ http: 'http://127.0.0.1:8080', ws: 'ws://127.0.0.1:8080/runner' });
  });
});
