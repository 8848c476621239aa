import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registrationProblem, RunnerNameError, RunnerTokens } from './runner-tokens';

let dir: string;
let db: Database.Database;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'seam-runner-tokens-'));
  db = new Database(join(dir, 'seam.db'));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('runner tokens', () => {
  it('bind each token to the name it was minted for', () => {
    const tokens = new RunnerTokens(db);
    const t = tokens.create('tpu-v5e-0');
    const info = tokens.verify(t.token)!;
    expect(info).toMatchObject({ name: 'tpu-v5e-0', serverMinted: false });
    expect(registrationProblem(info, 'tpu-v5e-0')).toBeNull();
    expect(registrationProblem(info, 'v5e-0')).toBe('this runner token is bound to the runner name "tpu-v5e-0"; start the runner with --name tpu-v5e-0');
    expect(registrationProblem(info, 'local')).toMatch(/reserved/);
  });

  it('refuse to mint an operator token for local, an empty or an over-long name', () => {
    const tokens = new RunnerTokens(db);
    expect(() => tokens.create('local')).toThrow(RunnerNameError);
    expect(() => tokens.create('')).toThrow(RunnerNameError);
    expect(() => tokens.create('x'.repeat(129))).toThrow(/1 to 128 characters/);
    expect(tokens.list()).toEqual([]);
  });

  it('let only the server\'s own token register as local', () => {
    const tokens = new RunnerTokens(db);
    const own = tokens.verify(tokens.rotate('local').token)!;
    expect(own).toMatchObject({ name: 'local', serverMinted: true });
    expect(registrationProblem(own, 'local')).toBeNull();
    expect(registrationProblem(own, 'cpu-1')).toMatch(/bound to the runner name "local"/);
  });

  it('migrate tokens made before binding: each keeps its recorded name, and older local tokens are revoked', () => {
    db.exec(`CREATE TABLE runner_tokens (id TEXT PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL, revoked_at INTEGER)`);
    const hash = (s: string) => Buffer.from(s).toString('hex');
    db.prepare('INSERT INTO runner_tokens VALUES (?, ?, ?, ?, NULL)').run('t1', 'tpu-v5e-0', hash('a'), 1);
    db.prepare('INSERT INTO runner_tokens VALUES (?, ?, ?, ?, NULL)').run('t2', 'local', hash('b'), 2);
    const tokens = new RunnerTokens(db, () => 99);
    expect(tokens.list()).toEqual([
      { id: 't1', name: 'tpu-v5e-0', createdAt: 1, revokedAt: null, serverMinted: false },
      { id: 't2', name: 'local', createdAt: 2, revokedAt: 99, serverMinted: false },
    ]);
    const fresh = tokens.rotate('local');
    // Opening the database again (the CLI, a restart) migrates nothing twice: the fresh local token stays live.
    expect(new RunnerTokens(db, () => 100).isLive(fresh.id)).toBe(true);
  });
});
