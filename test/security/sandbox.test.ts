import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEntry } from '@seam/shared/model';
import { createRoom, startTestServer, waitFor, type CreatedRoom, type TestServer } from '../helpers';
import { captureToEnd } from '../helpers/capture';
import { healthzDuring } from '../helpers/healthz';

/**
 * Hostile programs captured on a real server with its real local runner (bubblewrap, the sandbox
 * user, the job cgroup, the tmpfs quota). Each attack raises with what it found, so the room sees
 * the program's own report of the denial; meanwhile `/healthz` must answer in under 100 ms.
 */
const QUOTA = 64 * 1024 * 1024;
const PIDS = 128;
const MAIN = fileURLToPath(new URL('../../server/src/main.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Host processes whose command line holds `needle`. */
function processesWith(needle: string): number[] {
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((d) => {
    try {
      return readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(needle);
    } catch {
      return false;
    }
  }).map(Number);
}

/** Wraps attack code so that its findings end the program as an exception the room shows. */
function program(attack: string): string {
  const body = attack.trim().split('\n').map((l) => `    ${l}`).join('\n');
  return `import os\n\ndef _attack():\n    found = []\n${body}\n    return found\n\nraise RuntimeError("REPORT " + " | ".join(_attack()))\n\ndef f(x):\n    return x\n`;
}

describe('a capture cannot reach out of its sandbox', () => {
  let server: TestServer;
  let room: CreatedRoom;
  beforeAll(async () => {
    server = await startTestServer({ child: true, env: { SEAM_RUNNER: 'on', SEAM_SCRATCH_QUOTA: String(QUOTA), SEAM_JOB_PIDS: String(PIDS) } });
    room = await createRoom(server);
    await waitFor(async () => {
      const res = await fetch(`${server.url}/api/rooms/${room.id}/runners`, { headers: { authorization: `Bearer ${room.tokens.owner}` } });
      return ((await res.json()) as { runners: unknown[] }).runners.length > 0;
    }, 'the local runner to connect', 180_000);
  }, 200_000);
  afterAll(async () => {
    await server?.close();
  });

  /** Captures `code` on the local runner and returns the finished job; `/healthz` must stay under 100 ms all along. */
  async function attack(code: string, timeoutS = 60): Promise<CaptureEntry> {
    const { result, worstMs } = await healthzDuring(server, () => captureToEnd(server, room, {
      program: code, entry: 'f', args: [{ shape: [2], dtype: 'float32' }], capture: ['jaxpr'], runner: 'local', options: { timeoutS },
    }));
    expect(worstMs).toBeLessThan(100);
    return result;
  }

  /** The program's report, from a job that failed with its RuntimeError. */
  function report(job: CaptureEntry): string {
    expect(job.status).toBe('failed');
    expect(job.error?.reason).toBe('program-error');
    const m = /REPORT (.*)/.exec(job.error?.message ?? '');
    expect(m, job.error?.message).not.toBeNull();
    return m?.[1] ?? '';
  }

  it('cannot read the SQLite database in the data directory', async () => {
    const job = await attack(program(`
for p in [${JSON.stringify(join(server.dataDir, 'seam.db'))}, ${JSON.stringify(server.dataDir)}]:
    try:
        found.append("READ " + p + " " + str(len(open(p, "rb").read(100)) if os.path.isfile(p) else os.listdir(p)))
    except OSError as e:
        found.append("denied " + type(e).__name__)
`));
    const r = report(job);
    expect(r).not.toContain('READ');
    expect(r.match(/denied FileNotFoundError/g)).toHaveLength(2);
  });

  it("cannot read other processes' environments (the runner token) through /proc", async () => {
    const job = await attack(program(`
pids = [p for p in os.listdir("/proc") if p.isdigit()]
leaked = []
for p in pids:
    try:
        env = open("/proc/%s/environ" % p, "rb").read()
        if b"SEAM_RUNNER_TOKEN" in env or b"srn_" in env:
            leaked.append(p)
    except OSError:
        pass
found.append("pids %d" % len(pids))
found.append("LEAKED " + ",".join(leaked) if leaked else "no token")
`));
    const r = report(job);
    expect(r).toContain('no token');
    expect(Number(/pids (\d+)/.exec(r)?.[1])).toBeLessThan(8);
  });

  it('cannot read /etc/shadow', async () => {
    const job = await attack(program(`
for p in ["/etc/shadow", "/proc/1/root/etc/shadow"]:
    try:
        found.append("READ " + open(p).read()[:10])
    except OSError as e:
        found.append("denied " + type(e).__name__)
`));
    const r = report(job);
    expect(r).not.toContain('READ');
    expect(r.match(/denied/g)).toHaveLength(2);
  });

  it("cannot enter the host's network namespace, nor reach the server's port", async () => {
    const job = await attack(program(`
import ctypes, socket
libc = ctypes.CDLL(None, use_errno=True)
for p in ["/proc/1/ns/net"] + ["/proc/%s/ns/net" % q for q in os.listdir("/proc") if q.isdigit()]:
    try:
        fd = os.open(p, os.O_RDONLY)
    except OSError as e:
        found.append("open %s: %s" % (p, type(e).__name__))
        continue
    if libc.setns(fd, 0x40000000) == 0:
        found.append("SETNS " + p)
    else:
        found.append("setns refused errno %d" % ctypes.get_errno())
    os.close(fd)
try:
    socket.create_connection(("127.0.0.1", ${server.port}), timeout=5).close()
    found.append("CONNECTED")
except OSError as e:
    found.append("connect refused " + type(e).__name__)
`));
    const r = report(job);
    expect(r).not.toMatch(/SETNS|CONNECTED/);
    expect(r).toContain('setns refused errno 1');
    expect(r).toContain('connect refused');
  });

  it('cannot fork without end: the process limit stops it and nothing of it survives the job', async () => {
    const job = await attack(program(`
import time
n = 0
try:
    while True:
        if os.fork() == 0:
            while True:
                try:
                    os.fork()
                except OSError:
                    time.sleep(3600)
        n += 1
except OSError as e:
    found.append("fork refused after %d: errno %d" % (n, e.errno))
`));
    const r = report(job);
    expect(r).toMatch(/fork refused after \d+: errno 11/);
    expect(Number(/after (\d+)/.exec(r)?.[1])).toBeLessThan(PIDS);
    expect(processesWith('seam_capture.run')).toEqual([]);
  });

  it('cannot outlive its time limit by starting a new session', async () => {
    const marker = `seam-escape-${process.pid}-${Date.now()}`;
    const job = await attack(`import subprocess, time\nsubprocess.Popen(["sleep", "3600", "${marker}"], start_new_session=True)\ntime.sleep(3600)\n\ndef f(x):\n    return x\n`, 3);
    expect(job.status).toBe('failed');
    expect(job.error?.reason).toBe('timeout');
    expect(processesWith(marker)).toEqual([]);
  });

  it('cannot write outside its scratch folder', async () => {
    const job = await attack(program(`
for p in ["/usr/big", "/big", "/etc/big", "/dev/big", "/dev/shm/../big", ${JSON.stringify(join(server.dataDir, 'big'))}, ${JSON.stringify(join(ROOT, 'big'))}]:
    try:
        with open(p, "wb") as f:
            f.write(b"x" * (1 << 20))
        found.append("WROTE " + p)
    except OSError as e:
        found.append("refused %d" % e.errno)
`));
    const r = report(job);
    expect(r).not.toContain('WROTE');
    expect(r.match(/refused/g)).toHaveLength(7);
  });

  it('cannot write past its quota inside the scratch folder', async () => {
    const job = await attack(`with open("/tmp/big", "wb") as f:\n    for i in range(${(2 * QUOTA) / (1 << 20)}):\n        f.write(b"x" * (1 << 20))\n\ndef f(x):\n    return x\n`);
    expect(job.status).toBe('failed');
    expect(job.error?.reason).toBe('output-limit');
    expect(job.error?.message).toContain(`quota (${QUOTA} bytes)`);
  });
});

describe('npm start with the local runner', () => {
  /** Runs `npm start`'s entry with `env` until it listens (resolves 'listening') or exits (its stderr). */
  const dataDir = mkdtempSync(join(tmpdir(), 'seam-start-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  /** Runs `npm start`'s entry with `env` until it listens or exits, then stops it; returns which, and its stderr. */
  async function start(env: Record<string, string>): Promise<{ listening: boolean; stderr: string }> {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
      cwd: ROOT, env: { ...process.env, PORT: '0', SEAM_LOG_LEVEL: 'warn', SEAM_DATA_DIR: dataDir, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
    const exited = new Promise((r) => child.once('exit', r));
    const listening = await new Promise<boolean>((resolve) => {
      child.stdout.on('data', (b: Buffer) => {
        if (b.toString().includes('"listening"')) resolve(true);
      });
      void exited.then(() => resolve(false));
    });
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    return { listening, stderr };
  }

  it('refuses to start off loopback when the runner would be unsandboxed, naming the error', async () => {
    const s = await start({ HOST: '0.0.0.0', SEAM_BWRAP: '/nonexistent/bwrap' });
    expect(s.listening).toBe(false);
    expect(s.stderr).toContain('UnsandboxedRunnerError');
    expect(s.stderr).toContain('refusing to start on HOST=0.0.0.0');
  });

  it('starts on loopback without a sandbox, warning loudly', async () => {
    const s = await start({ HOST: '127.0.0.1', SEAM_BWRAP: '/nonexistent/bwrap' });
    expect(s.listening).toBe(true);
    expect(s.stderr).toContain('NOT sandboxed');
  });
});
