import type { Logger } from 'pino';
import { Analyzer } from './analyzer';
import type { AppDeps } from './app';
import type { Config } from './config';
import { Metrics } from './metrics';
import { openStore } from './store';
import { TextCache } from './store/text-cache';
import { Rooms } from './sync/rooms';
import { TraceReducers } from './trace/reducers';

/** Opens the store in `config.dataDir` and builds everything the app and the sync socket share. */
export function buildDeps(config: Config, log: Logger): AppDeps {
  const store = openStore(config.dataDir, config.syncMode);
  const metrics = new Metrics();
  const rooms = new Rooms({
    store, metrics, log, limits: config.limits, idleUnloadSeconds: config.idleUnloadSeconds,
    compactCount: config.compactCount, compactBytes: config.compactBytes,
  });
  return { config, store, rooms, metrics, texts: new TextCache(store.documents), log, analyzer: new Analyzer(log, config.limits), traceReducers: new TraceReducers(log, config.limits) };
}
