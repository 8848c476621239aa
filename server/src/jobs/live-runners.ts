import type { RunnerCapabilities } from '@seam/shared/protocol';

/** A runner connected to some instance, as the shared registry of live runners holds it. */
export interface LiveRunner {
  /** Its token id and name (`ConnectedRunner.id`): a reconnect, to any instance, replaces the entry. */
  readonly id: string;
  readonly name: string;
  readonly capabilities: RunnerCapabilities;
  readonly connectedAt: number;
  /** The instance holding its socket. */
  readonly instanceId: string;
}

/**
 * The runners connected to every instance of a scaled deployment (PostgreSQL, `live_runners`).
 * Each connection (`session`) writes its runner on hello and renews it with each heartbeat, for
 * one lease; a closed connection takes it out; a killed instance's runners are gone once their
 * lease has passed unrenewed. A stale connection never overwrites or removes a newer one's entry.
 */
export interface LiveRunners {
  /** Records `runner` for the connection `session`, live for `leaseMs`, replacing an earlier connection's entry. */
  put(session: string, runner: LiveRunner, leaseMs: number): Promise<void>;
  /** Keeps the connection's entry live for `leaseMs` more (writing it again if it had expired and was removed); nothing when a newer connection holds it. */
  renew(session: string, runner: LiveRunner, leaseMs: number): Promise<void>;
  /** Removes the entry if `session` still holds it. */
  drop(runnerId: string, session: string): Promise<void>;
  /** The live entries (not expired), oldest connection first. */
  list(): Promise<LiveRunner[]>;
  /** Releases connections. */
  close(): Promise<void>;
}
