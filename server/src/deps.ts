import type { Logger } from 'pino';
import { Analyzer } from './analyzer';
import type { AppDeps, ContentStores } from './app';
import type { Config, ScaledConfig } from './config';
import { Metrics } from './metrics';
import { openStore, type Store } from './store';
import { openPostgresStore } from './store/postgres';
import type { ReplayHistory, RoomLog } from './store/shared-store';
import { sqliteContent } from './store/sqlite-shared-store';
import { TextCache } from './store/text-cache';
import { LocalBusHub, LocalRoomBus } from './sync/bus/local-bus';
import { RedisRoomBus } from './sync/bus/redis-bus';
import type { RoomBus } from './sync/bus/room-bus';
import { Rooms } from './sync/rooms';
import { RedisDrillSignal } from './teaching/drill-signal';
import { TraceReducers } from './trace/reducers';

/** How long `/healthz` waits for PostgreSQL or Redis before it reports them down (ms). */
const PROBE_MS = 1000;

/** What the app and the sync socket share, over `store` and, in scaled mode, the shared room log, dumps and traces, and the bus. */
function depsOver(config: Config, log: Logger, store: Store, bus: RoomBus, roomLog?: RoomLog, content: ContentStores = sqliteContent(store), history?: ReplayHistory): AppDeps {
  const metrics = new Metrics();
  const rooms = new Rooms({
    store, metrics, log, limits: config.limits, idleUnloadSeconds: config.idleUnloadSeconds,
    compactCount: config.compactCount, compactBytes: config.compactBytes, bus, ...(roomLog ? { roomLog } : {}), ...(history ? { history } : {}),
  });
  return { config, store, rooms, metrics, texts: new TextCache(content.documents), content, log, analyzer: new Analyzer(log, config.limits), traceReducers: new TraceReducers(log, config.limits) };
}

/** Embedded mode: opens the store in `config.dataDir` and builds everything the app and the sync socket share. */
export function buildDeps(config: Config, log: Logger): AppDeps {
  return depsOver(config, log, openStore(config.dataDir, config.syncMode), new LocalRoomBus(new LocalBusHub()));
}

/** Whether `probe` answers true within `PROBE_MS`. */
async function answers(probe: () => Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), PROBE_MS)));
  try {
    return await Promise.race([probe().then(() => true, () => false), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Scaled mode: opens PostgreSQL (rooms, tokens, update logs) and Redis (the room bus), and the
 * embedded store in `config.dataDir` for what is still kept per instance. Throws (closing what
 * it opened) when either cannot be reached.
 */
async function openScaledDeps(config: Config, scaled: ScaledConfig, log: Logger): Promise<AppDeps> {
  const shared = await openPostgresStore(scaled.databaseUrl);
  let bus: RedisRoomBus;
  try {
    bus = await RedisRoomBus.connect(scaled.redisUrl, (err) => log.warn({ err: err.message }, 'room bus'));
  } catch (err) {
    await shared.close();
    throw err;
  }
  let drillSignal: RedisDrillSignal;
  try {
    drillSignal = await RedisDrillSignal.connect(scaled.redisUrl, (err) => log.warn({ err: err.message }, 'drill signal'));
  } catch (err) {
    await bus.close();
    await shared.close();
    throw err;
  }
  const deps = depsOver(config, log, openStore(config.dataDir, config.syncMode), bus, shared.roomLog, { documents: shared.documents, traces: shared.traces }, shared.history);
  const health = async () => {
    const [postgres, redis] = await Promise.all([answers(() => shared.rooms.get('healthz')), answers(() => bus.ping())]);
    return { ok: postgres && redis, postgres: postgres ? 'up' : 'down', redis: redis ? 'up' : 'down' };
  };
  return { ...deps, directory: shared.rooms, scaled: { shared, bus }, drillSignal, health, staging: shared.staging(config.limits) };
}

/** The deps of `config`'s mode: scaled when it names PostgreSQL and Redis, embedded otherwise. */
export async function openDeps(config: Config, log: Logger): Promise<AppDeps> {
  return config.scaled ? openScaledDeps(config, config.scaled, log) : buildDeps(config, log);
}
