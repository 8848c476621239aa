import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffModules } from '@seam/shared/ir';
import { DocumentKind } from '@seam/shared/model';
import { diffInThreads, startSideThread } from './diff-threads';
import { REPO_ROOT } from './seam-process';

const dump = (name: string): string => readFileSync(join(REPO_ROOT, 'test/fixtures/diff', name, 'hlo-opt.txt'), 'utf8');

// Each case starts a worker thread and tsx in it; leave room for a loaded machine.
describe('seam diff with B read in a worker thread', { timeout: 60_000 }, () => {
  it('finds the very diff one thread finds, both ways round', async () => {
    const a = dump('attention');
    const b = dump('attention_online');
    expect(await diffInThreads(a, b)).toEqual(diffModules(a, b));
    expect(await diffInThreads(b, a, { kindA: DocumentKind.hloOpt, kindB: DocumentKind.hloOpt })).toEqual(diffModules(b, a));
  });

  it('reads a truncated dump in the worker as it would here, parse errors said', async () => {
    const text = dump('mlp');
    const cut = text.slice(0, Math.floor(text.length / 2));
    const threaded = await diffInThreads(text, cut);
    expect(threaded).toEqual(diffModules(text, cut));
    expect(threaded.diagnostics.b.some((d) => d.severity === 'error')).toBe(true);
  });

  it("rejects with the reading thread's error when it cannot read, and the diff with it", async () => {
    // Not a text: the worker's reading throws, and says so in its reply instead of hanging.
    const notText = 42 as unknown as string;
    const side = startSideThread();
    try {
      await expect(side.read(notText, DocumentKind.hloOpt)).rejects.toThrow(/^reading a side of the diff failed: /);
      // The thread goes on answering after a failed reading.
      expect((await side.read(dump('mlp'), DocumentKind.hloOpt)).count).toBeGreaterThan(0);
    } finally {
      side.close();
    }
    await expect(diffInThreads(dump('mlp'), notText)).rejects.toThrow(/^reading a side of the diff failed: /);
  });

  it('answers several diffs on one kept thread, each the diff one thread finds', async () => {
    const side = startSideThread();
    try {
      const pairs: [string, string][] = [['mlp', 'mlp_remat'], ['attention', 'attention_online'], ['mlp_remat', 'mlp']];
      // Asked at once: the thread answers in the order asked, each diff gets its own B.
      const diffs = await Promise.all(pairs.map(([x, y]) => diffInThreads(dump(x), dump(y), {}, side)));
      diffs.forEach((d, i) => {
        const [x, y] = pairs[i] as [string, string];
        expect(d).toEqual(diffModules(dump(x), dump(y)));
      });
    } finally {
      side.close();
    }
  });

  it('says a thread closed before it answered, rather than waiting for it', async () => {
    const side = startSideThread();
    side.close();
    await expect(side.read(dump('mlp'), DocumentKind.hloOpt)).rejects.toThrow(/^the thread reading a side of the diff exited with \d+ before answering$/);
  });
});
