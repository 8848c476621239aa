import { startTestServer } from '../server';
import { startScaledCluster } from './scaled-cluster';

/** The two ways a suite runs: one embedded server, or scaled mode. */
export const TargetKind = { embedded: 'embedded', scaled: 'scaled' } as const;
export type TargetKind = (typeof TargetKind)[keyof typeof TargetKind];

/** How many instances a scaled target has: two, so that clients 0 and 1 of a room are on different ones. */
const SCALED_INSTANCES = 2;

/**
 * Where a suite's rooms are served. A suite written against a target runs unchanged on both
 * kinds: its attacker on `at(1)` and its victim on `at(0)` are one server embedded, and two
 * instances (sharing one PostgreSQL and one Redis) in scaled mode.
 */
export interface SyncTarget {
  readonly kind: TargetKind;
  /** The address a suite's REST calls go to: the server, or HAProxy in front of the instances. */
  readonly url: string;
  /** Client `i`'s address: the server, or instance `i % 2` directly. */
  at(i: number): { readonly url: string };
  /** Stops everything the target started. */
  close(): Promise<void>;
}

/**
 * Starts a target of `kind` with `env` for its servers: an embedded server (in process), or
 * PostgreSQL, Redis and two child instances behind HAProxy. One per test file (beforeAll): a
 * scaled target takes seconds to start.
 */
export async function startTarget(kind: TargetKind, env: Record<string, string> = {}): Promise<SyncTarget> {
  if (kind === TargetKind.embedded) {
    const s = await startTestServer({ env });
    return { kind, url: s.url, at: () => s, close: () => s.close() };
  }
  const { cluster, close } = await startScaledCluster(SCALED_INSTANCES, 'seam_target', env);
  return { kind, url: cluster.url, at: (i) => ({ url: cluster.instances[i % SCALED_INSTANCES]!.server!.url }), close };
}
