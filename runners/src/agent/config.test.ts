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

  it('derives the socket and HTTP URLs from either scheme', () => {
    expect(serverUrls('https://seam.example.org/')).toEqual({ http: 'https://seam.example.org', ws: 'wss://seam.example.org/runner' });
    expect(serverUrls('ws://127.0.0.1:8080')).toEqual({ http: 'http://127.0.0.1:8080', ws: 'ws://127.0.0.1:8080/runner' });
  });
});
