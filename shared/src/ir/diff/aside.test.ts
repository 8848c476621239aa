import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DocumentKind } from '../../model/document';
import { diffModulesAside, type GraphReader } from './aside';
import { diffModules } from './diff';
import { answerGraphRequest, graphOfReply } from './graph-thread';

const fixture = (name: string): string => readFileSync(new URL(`../../../../test/fixtures/diff/${name}/hlo-opt.txt`, import.meta.url), 'utf8');

/** A reader that answers as a thread would: the reply cloned across, its columns transferred (detached here). */
const acrossThreads: GraphReader = async (text, kind) => {
  const { reply, transfer } = answerGraphRequest({ text, kind });
  return graphOfReply(structuredClone(reply, { transfer }));
};

describe('diffModulesAside: B read elsewhere, A here', () => {
  it('finds the very diff diffModules finds, for every pair of the fixtures', async () => {
    const names = ['mlp', 'mlp_remat', 'attention', 'attention_online', 'sharded', 'sharded_constraint'];
    for (const x of names) {
      for (const y of names) {
        const [a, b] = [fixture(x), fixture(y)];
        expect(await diffModulesAside(a, b, {}, acrossThreads), `${x} → ${y}`).toEqual(diffModules(a, b));
      }
    }
  });

  it('moves a graph to the reader with its buffers, leaving them empty behind', () => {
    const { reply, transfer } = answerGraphRequest({ text: fixture('mlp'), kind: DocumentKind.hloOpt });
    const graph = graphOfReply(reply);
    expect(transfer.length).toBeGreaterThan(10);
    const moved = graphOfReply(structuredClone(reply, { transfer }));
    expect(graph.operands.length).toBe(0);
    expect(moved.operands.length).toBe(moved.opFrom[moved.count]);
  });

  it('rejects with the reader\'s error, and says a failed reply by its message', async () => {
    const broken: GraphReader = () => Promise.reject(new Error('the reading thread stopped'));
    await expect(diffModulesAside(fixture('mlp'), fixture('mlp_remat'), {}, broken)).rejects.toThrow('the reading thread stopped');
    expect(() => graphOfReply({ ok: false, message: 'out of memory' })).toThrow('reading a side of the diff failed: out of memory');
    // What the thread is sent is not a text: it answers with the error, it does not throw.
    const { reply, transfer } = answerGraphRequest({ text: 42 as unknown as string, kind: DocumentKind.hloOpt });
    expect(reply.ok).toBe(false);
    expect(transfer).toEqual([]);
  });
});
