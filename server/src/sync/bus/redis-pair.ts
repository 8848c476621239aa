import { Redis } from 'ioredis';

/** Reconnect quickly and keep trying: what travels on Redis is useless while it is down, and holders catch up once it is back. */
const retryStrategy = (times: number) => Math.min(50 * times, 500);

/** A publishing and a subscribed connection to one Redis. */
export interface RedisPair {
  /** Publishes; fails at once while Redis is down (no offline queue), so a lost publish is known. */
  readonly pub: Redis;
  /** Subscribes; retries for ever. */
  readonly sub: Redis;
}

/**
 * Connects both connections to `url` (`redis://HOST:PORT`), the subscriber re-subscribing by
 * itself after a reconnect unless `autoResubscribe` is false; rejects (closing both) if Redis
 * cannot be reached.
 */
export async function connectRedisPair(url: string, autoResubscribe = true): Promise<RedisPair> {
  const pub = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy });
  const sub = new Redis(url, { lazyConnect: true, autoResubscribe, maxRetriesPerRequest: null, retryStrategy });
  try {
    await Promise.all([pub.connect(), sub.connect()]);
  } catch (err) {
    pub.disconnect();
    sub.disconnect();
    throw err;
  }
  return { pub, sub };
}
