import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { connectRedisPair } from '../sync/bus/redis-pair';
import { DrillHub } from './drill-hub';

/**
 * How the owner's event streams learn that a drill's answers changed: `watch` is called by a
 * stream, `changed` after an answer is stored or the drill revealed. `DrillHub` (embedded mode)
 * reaches the streams of this process; `RedisDrillSignal` (scaled mode) those of every instance.
 */
export interface DrillSignal {
  /** Calls `fn` after each change to `drillId`, on any instance, until the returned function is called. */
  watch(drillId: string, fn: () => void): () => void;
  /** Tells every watcher of `drillId` that its answers changed. */
  changed(drillId: string): void;
  close(): Promise<void>;
}

/** Channel of a drill: `PREFIX` + drill id. */
export const DRILL_CHANNEL_PREFIX = 'seam:drill:';

/**
 * Drill changes over Redis pub/sub, one channel per drill, subscribed only while a stream on this
 * instance watches that drill: an answer posted to one instance reaches the owner's stream on
 * another. The message is the publisher's instance id only (a watcher reads the answers from the
 * shared store itself), so a hostile or malformed message costs one read at most. Nothing is kept
 * in Redis: when the subscriber reconnects, every watched drill is announced as changed, so a
 * stream that missed a message re-reads the answers then.
 */
export class RedisDrillSignal implements DrillSignal {
  private readonly instanceId = randomBytes(12).toString('base64url');
  private readonly hub = new DrillHub();
  private lost = false;

  private constructor(private readonly pub: Redis, private readonly sub: Redis, private readonly onError: (err: Error) => void) {
    const lostOn = (err: Error) => {
      if (!this.lost) onError(err);
      this.lost = true;
    };
    pub.on('error', (err: Error) => onError(err));
    sub.on('error', lostOn);
    sub.on('close', () => (this.lost = true));
    sub.on('ready', () => {
      if (!this.lost) return;
      this.lost = false;
      // ioredis subscribes the watched channels again (autoResubscribe); what was missed meanwhile is re-read.
      for (const id of this.hub.watched()) this.hub.changed(id);
    });
    sub.on('message', (channel: string, message: string) => {
      if (!channel.startsWith(DRILL_CHANNEL_PREFIX) || message === this.instanceId) return;
      this.hub.changed(channel.slice(DRILL_CHANNEL_PREFIX.length));
    });
  }

  /** Connects to `url` (`redis://HOST:PORT`); rejects if Redis cannot be reached. `onError` hears connection and publish failures. */
  static async connect(url: string, onError: (err: Error) => void): Promise<RedisDrillSignal> {
    const { pub, sub } = await connectRedisPair(url);
    return new RedisDrillSignal(pub, sub, onError);
  }

  watch(drillId: string, fn: () => void): () => void {
    const first = !this.hub.watched().includes(drillId);
    const unwatch = this.hub.watch(drillId, fn);
    if (first) this.sub.subscribe(DRILL_CHANNEL_PREFIX + drillId).catch((err: unknown) => this.onError(err as Error));
    return () => {
      unwatch();
      if (!this.hub.watched().includes(drillId)) this.sub.unsubscribe(DRILL_CHANNEL_PREFIX + drillId).catch((err: unknown) => this.onError(err as Error));
    };
  }

  changed(drillId: string): void {
    this.hub.changed(drillId);
    this.pub.publish(DRILL_CHANNEL_PREFIX + drillId, this.instanceId).catch((err: unknown) => this.onError(err as Error));
  }

  async close(): Promise<void> {
    await Promise.all([this.pub.quit().catch(() => undefined), this.sub.quit().catch(() => undefined)]);
  }
}
