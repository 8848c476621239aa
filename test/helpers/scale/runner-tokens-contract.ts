import { describe, expect, it } from 'vitest';
import { RUNNER_LIMITS } from '@seam/shared/protocol';
import { RunnerNameError } from '../../../server/src/jobs/runner-tokens';
import { StoreInputError } from '../../../server/src/store/store-errors';
import { useContractBackend, type ContractBackend, type ContractClock } from './store-contract';

/**
 * The contract of runner tokens, run against every backend as `describeSharedStore` is:
 * `open(clock)` gives a fresh, empty backend whose tokens are stamped with `clock.t`.
 */
export function describeRunnerTokens(name: string, open: (clock: ContractClock) => Promise<ContractBackend>): void {
  describe(`shared store contract, runner tokens: ${name}`, () => {
    const { clock, start, second } = useContractBackend(open);

    it('mints a token bound to its runner name, verifies it until it is revoked, and lists it without its secret', async () => {
      const store = await start();
      const { token, ...info } = await store.runnerTokens.create('cpu-1');
      expect(token).toMatch(/^srn_[\w-]{43}$/);
      expect(info).toEqual({ id: info.id, name: 'cpu-1', createdAt: 1_000, revokedAt: null, serverMinted: false });
      expect(await store.runnerTokens.verify(token)).toEqual(info);
      expect(await store.runnerTokens.verify(`${token}x`)).toBeNull();
      expect(await store.runnerTokens.verify(token.slice(4))).toBeNull();
      expect(await store.runnerTokens.isLive(info.id)).toBe(true);
      expect(await store.runnerTokens.list()).toEqual([info]);
      clock.t = 2_000;
      expect(await store.runnerTokens.revoke(info.id)).toBe(true);
      expect(await store.runnerTokens.revoke(info.id)).toBe(false);
      expect(await store.runnerTokens.verify(token)).toBeNull();
      expect(await store.runnerTokens.isLive(info.id)).toBe(false);
      expect(await store.runnerTokens.list()).toEqual([{ ...info, revokedAt: 2_000 }]);
      for (const bad of ['', 'local', 'x'.repeat(RUNNER_LIMITS.name + 1)]) await expect(store.runnerTokens.create(bad)).rejects.toBeInstanceOf(RunnerNameError);
      expect(await store.runnerTokens.list()).toHaveLength(1);
    });

    it('rotates the server\'s own token: every live token of the name revoked, one live after rotations from two instances at once', async () => {
      const store = await start();
      const other = await second();
      const first = await store.runnerTokens.rotate('local');
      expect(first.serverMinted).toBe(true);
      expect(await store.runnerTokens.verify(first.token)).toMatchObject({ name: 'local', serverMinted: true });
      const kept = await store.runnerTokens.create('cpu-1');
      await Promise.all([store.runnerTokens.rotate('local'), other.runnerTokens.rotate('local'), store.runnerTokens.rotate('local')]);
      const live = (await store.runnerTokens.list()).filter((t) => t.revokedAt === null);
      expect(live.map((t) => t.name).sort()).toEqual(['cpu-1', 'local']);
      expect(await store.runnerTokens.verify(first.token)).toBeNull();
      expect(await store.runnerTokens.isLive(kept.id)).toBe(true);
    });

    it('refuses malformed runner token calls with StoreInputError, minting nothing', async () => {
      const store = await start();
      const cases: (() => Promise<unknown>)[] = [
        () => store.runnerTokens.create(5 as never),
        () => store.runnerTokens.create('cpu\0'),
        () => store.runnerTokens.rotate(''),
        () => store.runnerTokens.verify(null as never),
        () => store.runnerTokens.revoke(['id'] as never),
        () => store.runnerTokens.isLive('id\0'),
      ];
      for (const c of cases) await expect(c()).rejects.toBeInstanceOf(StoreInputError);
      expect(await store.runnerTokens.list()).toEqual([]);
    });
  });
}
