import type { RunnerCapabilities, ServerToAgent } from '@seam/shared/protocol';
import { writeRunnerMessage } from '@seam/shared/protocol';

/** What the runner registry needs of a socket: send a text frame, close with a code. */
export interface RunnerSocket {
  send(data: string): void;
  close(code: number, reason: string): void;
}

/** A connected runner. `id` is stable per token and name, so a reconnect replaces the old socket. */
export interface ConnectedRunner {
  readonly id: string;
  readonly tokenId: string;
  readonly name: string;
  readonly capabilities: RunnerCapabilities;
  readonly socket: RunnerSocket;
  readonly connectedAt: number;
  /** This connection's id: what it writes into the shared registry of live runners under (scaled mode). */
  readonly session: string;
  /** True after the runner said `ready` and before it is sent a job. */
  ready: boolean;
}

/** A runner as `GET /api/runners` lists it. */
export interface RunnerInfo {
  readonly name: string;
  readonly capabilities: RunnerCapabilities;
  readonly busy: boolean;
  readonly connectedAt: number;
}

/** The runners connected to this server instance, in memory. */
export class RunnerRegistry {
  private readonly runners = new Map<string, ConnectedRunner>();

  /** Adds a runner, returning the runner it replaces (same token and name), if any. */
  add(runner: ConnectedRunner): ConnectedRunner | undefined {
    const old = this.runners.get(runner.id);
    this.runners.set(runner.id, runner);
    return old;
  }

  /** Removes the runner if `socket` is still its socket (a replaced socket's close removes nothing). */
  remove(id: string, socket: RunnerSocket): void {
    if (this.runners.get(id)?.socket === socket) this.runners.delete(id);
  }

  get(id: string): ConnectedRunner | undefined {
    return this.runners.get(id);
  }

  all(): ConnectedRunner[] {
    return [...this.runners.values()];
  }

  /** Sends a frame to a runner if it is connected; false when it is not. */
  send(id: string, msg: ServerToAgent): boolean {
    const r = this.runners.get(id);
    if (!r) return false;
    r.socket.send(writeRunnerMessage(msg));
    return true;
  }
}
