import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isLiveProcess } from '../testing';
import { recordGroup, sweepStaleScratch } from './scratch';

describe('sweepStaleScratch', () => {
  const root = mkdtempSync(join(tmpdir(), 'seam-scratch-test-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("stops a dead agent's orphaned capture and removes its directory, leaving live agents' alone", async () => {
    const dead = spawnSync('true').pid!;
    const orphanDir = join(root, `${dead}-abc`);
    mkdirSync(orphanDir);
    const orphan = spawn('sleep', ['600'], { cwd: orphanDir, detached: true, stdio: 'ignore' });
    recordGroup(orphanDir, orphan.pid!);
    const liveDir = join(root, `${process.ppid}-def`);
    mkdirSync(liveDir);

    expect(sweepStaleScratch(root)).toEqual([orphanDir]);
    await new Promise((r) => orphan.once('exit', r));
    expect(isLiveProcess(orphan.pid!)).toBe(false);
    expect(existsSync(orphanDir)).toBe(false);
    expect(existsSync(liveDir)).toBe(true);
  });

  it('never signals a process whose working directory is elsewhere', () => {
    const dead = spawnSync('true').pid!;
    const dir = join(root, `${dead}-ghi`);
    mkdirSync(dir);
    const bystander = spawn('sleep', ['600'], { cwd: root, detached: true, stdio: 'ignore' });
    recordGroup(dir, bystander.pid!);
    sweepStaleScratch(root);
    expect(isLiveProcess(bystander.pid!)).toBe(true);
    process.kill(-bystander.pid!, 'SIGKILL');
  });
});
