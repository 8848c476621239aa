import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../errors';
import { BlobStaging } from './blob-staging';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'seam-staging-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const body = (s: string) => Readable.from([Buffer.from(s)]);
const BOUND = { maxBytes: 100, tooLarge: 'too big' };

describe('BlobStaging', () => {
  it('stages a body under its sha256, checks the one claimed, and keeps nothing of a refused body', async () => {
    let now = 1_000_000;
    const staging = new BlobStaging(dir, { stagedBytes: 1000, stagedSeconds: 60 }, () => now);
    expect(await staging.put('room', body('hello'), BOUND)).toEqual({ sha256: sha('hello'), bytes: 5 });
    expect(readFileSync(staging.pathOf('room', sha('hello')), 'utf8')).toBe('hello');
    expect(await staging.size('room', sha('hello'))).toBe(5);
    await expect(staging.put('room', body('hello?'), BOUND, sha('hello'))).rejects.toThrow(/sha256/);
    await expect(staging.put('room', body('x'.repeat(101)), BOUND)).rejects.toMatchObject({ code: 'too_large', message: 'too big' });
    expect(readdirSync(join(dir, 'room'))).toEqual([sha('hello')]);
    expect(() => staging.pathOf('../etc', sha('hello'))).toThrow(ApiError);
    expect(() => staging.pathOf('room', '../../x')).toThrow(ApiError);
    // expired after stagedSeconds, and swept
    now += 61_000;
    expect(await staging.size('room', sha('hello'))).toBeUndefined();
    await staging.sweep();
    expect(readdirSync(join(dir, 'room'))).toEqual([]);
  });

  it('leaves no temporary file behind a body that fails at once, before its file is even open', async () => {
    const staging = new BlobStaging(dir, { stagedBytes: 1000, stagedSeconds: 60 });
    const failing = async function* (): AsyncGenerator<Uint8Array> {
      yield* [];
      throw new Error('cut short');
    };
    for (let i = 0; i < 20; i++) await expect(staging.put('room', failing(), BOUND)).rejects.toThrow('cut short');
    expect(readdirSync(join(dir, 'room'))).toEqual([]);
  });

  it('bounds the bytes one room may stage at once, counting each content once', async () => {
    const staging = new BlobStaging(dir, { stagedBytes: 12, stagedSeconds: 60 });
    await staging.put('a', body('123456'), BOUND);
    await staging.put('a', body('123456'), BOUND);
    await staging.put('a', body('abcde'), BOUND);
    await expect(staging.put('a', body('xy'), BOUND)).rejects.toMatchObject({ code: 'too_large', message: expect.stringMatching(/SEAM_STAGED_BYTES/) });
    await staging.put('b', body('xy'), BOUND);
    await staging.remove('a', [sha('123456')]);
    expect(await staging.put('a', body('xy'), BOUND)).toMatchObject({ bytes: 2 });
  });
});
