import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pythonRoots } from './bwrap';
import { DEFAULT_PYTHON } from './config';
import { probeIsolation, type Isolation } from './isolation';
import { applyQuota, type ScratchQuota } from './quota';
import { runSandboxed, type SandboxJob, type SandboxLimits } from './sandbox';
import { makeScratch } from './scratch';

const PY = DEFAULT_PYTHON;
const limits: SandboxLimits = {
  timeoutMs: 60_000, memoryBytes: 0, fileBytes: 0, maxOutputBytes: 1 << 20, tailBytes: 4096,
  cgroup: { memoryBytes: 0, pids: 0, cpus: 0 }, scratchBytes: 0,
};
const isolation = probeIsolation({ sandboxUser: 'seam-sandbox', network: false, log: () => {} });
const unconfined: Isolation = { ...isolation, bwrap: null, user: null, tmpfsQuota: false, bwrapProblem: 'test' };

/** Processes whose command line holds `marker`, anywhere on the host. */
function withMarker(marker: string): number[] {
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((d) => {
    try {
      return readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(marker);
    } catch {
      return false;
    }
  }).map(Number);
}

describe('runSandboxed', () => {
  const scratches: { dir: string; quota: ScratchQuota }[] = [];
  /** A scratch folder as executeCapture makes it (a sized tmpfs when `quotaBytes` and the host allow). */
  function scratch(iso: Isolation, quotaBytes = 0): { dir: string; quotaMounted: boolean } {
    const dir = makeScratch();
    const quota = applyQuota(dir, iso.tmpfsQuota ? quotaBytes : 0, iso.bwrap ? iso.user : null);
    scratches.push({ dir, quota });
    return { dir, quotaMounted: quota.mounted };
  }
  function job(iso: Isolation, code: string, extra: Partial<SandboxJob> = {}): SandboxJob {
    const s = scratch(iso);
    return { argv: [PY, '-c', code], scratch: s.dir, readOnly: pythonRoots(PY), env: { PATH: '/usr/bin:/bin', HOME: '/tmp' }, quotaMounted: s.quotaMounted, ...extra };
  }
  afterEach(() => {
    for (const { dir, quota } of scratches.splice(0)) {
      quota.release();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds bubblewrap working on this host', () => {
    expect(isolation.bwrapProblem).toBeNull();
    expect(isolation.bwrap).toMatch(/bwrap$/);
  });

  it('kills everything the job started at the timeout, a grandchild in a new session included', async () => {
    const marker = `seam-marker-${process.pid}-${Date.now()}`;
    const code = `import subprocess, time\nsubprocess.Popen(["sleep", "600", "${marker}"], start_new_session=True)\nprint("started", flush=True)\ntime.sleep(600)\n`;
    const run = runSandboxed(job(isolation, code), { ...limits, timeoutMs: 1500 }, isolation);
    const out = await run.done;
    expect(out.stdoutTail).toContain('started');
    expect(out.timedOut).toBe(true);
    expect(withMarker(marker)).toEqual([]);
  });

  it('kills a setsid grandchild without bubblewrap too, through the cgroup', async () => {
    const marker = `seam-marker-u-${process.pid}-${Date.now()}`;
    const code = `import subprocess, time\nsubprocess.Popen(["sleep", "600", "${marker}"], start_new_session=True)\nprint("started", flush=True)\ntime.sleep(600)\n`;
    const out = await runSandboxed(job(unconfined, code, { env: { PATH: '/usr/bin:/bin' } }), { ...limits, timeoutMs: 1500 }, unconfined).done;
    expect(out.timedOut).toBe(true);
    expect(withMarker(marker)).toEqual(unconfined.cgroups.version === 0 ? expect.any(Array) : []);
  });

  it('stops a child that prints past the output cap and keeps only the tail', async () => {
    const code = 'import sys\nfor i in range(10**7):\n    sys.stdout.write("line %d\\n" % i)\n';
    const out = await runSandboxed(job(isolation, code), limits, isolation).done;
    expect(out.outputExceeded).toBe(true);
    expect(out.outputBytes).toBeLessThan(4 << 20);
    expect(out.stdoutTail.length).toBeLessThanOrEqual(4096);
    expect(out.stdoutTail).toMatch(/line \d+/);
  });

  it('passes exactly the environment it is given', async () => {
    process.env.SEAM_TEST_SECRET = 'hunter2';
    const out = await runSandboxed(job(isolation, 'import os, json; print(json.dumps(dict(os.environ)))', { env: { PATH: '/usr/bin:/bin', ONLY: '1' } }), limits, isolation).done;
    delete process.env.SEAM_TEST_SECRET;
    const env = JSON.parse(out.stdoutTail) as Record<string, string>;
    expect(env.ONLY).toBe('1');
    expect(Object.values(env)).not.toContain('hunter2');
  });

  it('reports a cancelled run as cancelled, and the child gone', async () => {
    const run = runSandboxed(job(isolation, 'import time\nprint("up", flush=True)\ntime.sleep(600)'), limits, isolation);
    setTimeout(() => run.cancel(), 500);
    const out = await run.done;
    expect(out.cancelled).toBe(true);
    expect(out.signal).toBe('SIGKILL');
  });

  it('runs the program as an unprivileged user in a read-only file system whose one writable place is the scratch folder', async () => {
    const code = [
      'import os',
      'print("uid", os.getuid())',
      'open("/tmp/mine", "w").write("ok")',
      'for p in ["/usr/evil", "/evil", "/etc/evil", "/dev/evil"]:',
      '    try:',
      '        open(p, "w")',
      '        print("WROTE", p)',
      '    except OSError as e:',
      '        print("refused", p, e.errno)',
      'print("root sees", sorted(os.listdir("/")))',
    ].join('\n');
    const j = job(isolation, code);
    const out = await runSandboxed(j, limits, isolation).done;
    expect(out.code).toBe(0);
    expect(out.stdoutTail).not.toContain('WROTE');
    expect(out.stdoutTail.match(/refused/g)).toHaveLength(4);
    expect(Number(/uid (\d+)/.exec(out.stdoutTail)?.[1])).toBeGreaterThan(0);
    const top = /root sees \[(.*)\]/.exec(out.stdoutTail)?.[1]?.split(', ').map((n) => n.slice(1, -1)) ?? [];
    const bound = j.readOnly.map((p) => p.split('/')[1]);
    expect(top.filter((n) => !['bin', 'sbin', 'lib', 'lib32', 'lib64', 'usr', 'etc', 'dev', 'proc', 'sys', 'tmp', ...bound].includes(n))).toEqual([]);
    expect(top).toContain('usr');
    expect(readFileSync(`${j.scratch}/mine`, 'utf8')).toBe('ok');
  });

  it('binds read-only folders that lie under /tmp (a checkout there) on top of the scratch folder, read-only', async () => {
    const checkout = mkdtempSync(join(tmpdir(), 'seam-checkout-'));
    chmodSync(checkout, 0o755);
    writeFileSync(join(checkout, 'harness.txt'), 'from the checkout');
    try {
      const code = `p = ${JSON.stringify(join(checkout, 'harness.txt'))}\nprint(open(p).read())\ntry:\n    open(p, "a")\n    print("WROTE")\nexcept OSError as e:\n    print("refused", e.errno)\n`;
      const out = await runSandboxed(job(isolation, code, { readOnly: [...pythonRoots(PY), checkout] }), limits, isolation).done;
      expect(out.stderrTail).toBe('');
      expect(out.stdoutTail).toContain('from the checkout');
      expect(out.stdoutTail).toMatch(/refused \d+/);
    } finally {
      rmSync(checkout, { recursive: true, force: true });
    }
  });

  describe('network', () => {
    let server: Server;
    let port = 0;
    beforeAll(async () => {
      server = createServer((s) => {
        s.on('error', () => {}); // the client closes at once
        s.end('hello\n');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));
    const code = () => `import socket\ntry:\n    socket.create_connection(("127.0.0.1", ${port}), timeout=5).close()\n    print("connected")\nexcept OSError as e:\n    print("refused", e)\n`;

    it('has none inside the sandbox, and the host network with --allow-network', async () => {
      const cut = await runSandboxed(job(isolation, code()), limits, isolation).done;
      expect(cut.stdoutTail.trim().split(' ')[0]).toBe('refused');
      const shared = { ...isolation, network: true };
      const open = await runSandboxed(job(shared, code()), limits, shared).done;
      expect(open.stdoutTail.trim()).toBe('connected');
    });
  });

  describe('limits', () => {
    it('holds the address space to the memory limit through prlimit', async () => {
      const GiB2 = 2 * 1024 ** 3;
      const out = await runSandboxed(job(isolation, 'import resource\nprint(resource.getrlimit(resource.RLIMIT_AS)[1])'), { ...limits, memoryBytes: GiB2 }, isolation).done;
      expect(Number(out.stdoutTail.trim())).toBe(isolation.prlimit ? GiB2 : -1);
    });

    it('stops a job whose scratch folder outgrows its quota when no tmpfs holds it', async () => {
      const code = 'import time\nf = open("/tmp/big", "wb")\nfor i in range(64):\n    f.write(b"x" * (1 << 20)); f.flush()\n    time.sleep(0.05)\nprint("wrote it all")\n';
      const out = await runSandboxed(job(isolation, code, { quotaMounted: false }), { ...limits, scratchBytes: 4 << 20 }, isolation).done;
      expect(out.quotaExceeded).toBe(true);
      expect(out.stdoutTail).not.toContain('wrote it all');
    });

    it('refuses writes past a tmpfs quota with ENOSPC', async () => {
      if (!isolation.tmpfsQuota) expect(isolation.user).toBeNull();
      const s = scratch(isolation, 4 << 20);
      expect(s.quotaMounted).toBe(isolation.tmpfsQuota);
      const code = 'try:\n    open("/tmp/big", "wb").write(b"x" * (16 << 20))\n    print("wrote it all")\nexcept OSError as e:\n    print("refused", e.errno)\n';
      const out = await runSandboxed({ argv: [PY, '-c', code], scratch: s.dir, readOnly: pythonRoots(PY), env: { PATH: '/usr/bin' }, quotaMounted: s.quotaMounted }, { ...limits, scratchBytes: 4 << 20 }, isolation).done;
      expect(out.stdoutTail.trim()).toBe(isolation.tmpfsQuota ? 'refused 28' : 'wrote it all');
    });

    it('bounds processes and memory in the job cgroup, reports the OOM kill, and removes the cgroup', async () => {
      expect(isolation.cgroups.version).not.toBe(0);
      const fork = 'import os, time\nn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            time.sleep(60); os._exit(0)\n        n += 1\nexcept OSError as e:\n    print("forks", n, "then", e.errno, flush=True)\n';
      const forked = await runSandboxed(job(isolation, fork), { ...limits, cgroup: { memoryBytes: 0, pids: 64, cpus: 0 } }, isolation).done;
      const [, n, errno] = /forks (\d+) then (\d+)/.exec(forked.stdoutTail) ?? [];
      expect(Number(n)).toBeLessThan(64);
      expect(Number(errno)).toBe(11);

      const hog = 'b = b"x" * (768 << 20)\nprint("allocated", len(b))\n';
      const hogged = await runSandboxed(job(isolation, hog), { ...limits, cgroup: { memoryBytes: 256 << 20, pids: 0, cpus: 0.5 } }, isolation).done;
      expect(hogged.stdoutTail).not.toContain('allocated');
      expect(hogged.oomKilled).toBe(true);

      const bases = isolation.cgroups.version === 2 ? [isolation.cgroups.base] : isolation.cgroups.version === 1 ? Object.values(isolation.cgroups.bases) : [];
      for (const base of bases) expect(readdirSync(base).filter((d) => d.startsWith(`seam-${process.pid}-`))).toEqual([]);
      expect(bases.every((b) => existsSync(b))).toBe(true);
    });
  });
});
