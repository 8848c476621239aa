import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLiveProcess } from '../testing';
import { probeIsolation, runSandboxed, type SandboxLimits } from './sandbox';

const PY = 'python3';
const limits: SandboxLimits = { timeoutMs: 60_000, memoryBytes: 0, fileBytes: 0, maxOutputBytes: 1 << 20, tailBytes: 4096 };
const none = { noNetwork: null, prlimit: false };
const GiB2 = 2 * 1024 ** 3;

describe('runSandboxed', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'seam-sandbox-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('kills the whole process group at the timeout, grandchildren included', async () => {
    const code = 'import subprocess, sys, time\np = subprocess.Popen(["sleep", "600"])\nprint(p.pid, flush=True)\ntime.sleep(600)\n';
    const out = await runSandboxed([PY, '-c', code], dir, { PATH: '/usr/bin:/bin' }, { ...limits, timeoutMs: 1000 }, none).done;
    expect(out.timedOut).toBe(true);
    const grandchild = Number(out.stdoutTail.trim());
    expect(grandchild).toBeGreaterThan(0);
    expect(isLiveProcess(grandchild)).toBe(false);
  });

  it('stops a child that prints past the output cap and keeps only the tail', async () => {
    const code = 'import sys\nfor i in range(10**7):\n    sys.stdout.write("line %d\\n" % i)\n';
    const out = await runSandboxed([PY, '-c', code], dir, { PATH: '/usr/bin:/bin' }, limits, none).done;
    expect(out.outputExceeded).toBe(true);
    expect(out.outputBytes).toBeLessThan(4 << 20);
    expect(out.stdoutTail.length).toBeLessThanOrEqual(4096);
    expect(out.stdoutTail).toMatch(/line \d+/);
  });

  it('passes exactly the environment it is given', async () => {
    process.env.SEAM_TEST_SECRET = 'hunter2';
    const out = await runSandboxed([PY, '-c', 'import os, json; print(json.dumps(dict(os.environ)))'], dir, { PATH: '/usr/bin:/bin', ONLY: '1' }, limits, none).done;
    delete process.env.SEAM_TEST_SECRET;
    const env = JSON.parse(out.stdoutTail) as Record<string, string>;
    expect(env.ONLY).toBe('1');
    expect(Object.values(env)).not.toContain('hunter2');
  });

  it('reports a cancelled run as cancelled, and the child gone', async () => {
    const run = runSandboxed([PY, '-c', 'import time\nprint("up", flush=True)\ntime.sleep(600)'], dir, { PATH: '/usr/bin:/bin' }, limits, none);
    setTimeout(() => run.cancel(), 300);
    const out = await run.done;
    expect(out.cancelled).toBe(true);
    expect(out.signal).toBe('SIGKILL');
  });

  describe('with the isolation this host allows', () => {
    const isolation = probeIsolation();
    let server: Server;
    let port = 0;
    beforeAll(async () => {
      server = createServer((s) => s.end('hello\n'));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    it('cuts the network when a network namespace is available, and only then', async () => {
      const code = `import socket\ntry:\n    socket.create_connection(("127.0.0.1", ${port}), timeout=5).close()\n    print("connected")\nexcept OSError as e:\n    print("refused", e)\n`;
      const out = await runSandboxed([PY, '-c', code], dir, { PATH: '/usr/bin:/bin' }, limits, isolation).done;
      expect(out.stdoutTail.trim().split(' ')[0]).toBe(isolation.noNetwork ? 'refused' : 'connected');
    });

    it('holds the address space to the memory limit where prlimit exists', async () => {
      const code = 'import resource\nprint(resource.getrlimit(resource.RLIMIT_AS)[1])';
      const out = await runSandboxed([PY, '-c', code], dir, { PATH: '/usr/bin:/bin' }, { ...limits, memoryBytes: GiB2 }, isolation).done;
      expect(Number(out.stdoutTail.trim())).toBe(isolation.prlimit ? GiB2 : -1);
    });
  });
});
