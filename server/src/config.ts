import { defaultRoomCreation, RoomCreation, roomCreationProblem } from './auth/room-policy';

/** SQLite `synchronous` setting for the WAL: see docs/storage.md for what each survives. */
export const SyncMode = { normal: 'NORMAL', full: 'FULL' } as const;
export type SyncMode = (typeof SyncMode)[keyof typeof SyncMode];

/** Limits the server enforces; every one is configurable. */
export interface Limits {
  /** Largest WebSocket frame; bigger closes with 1009. Default 16 MiB. */
  readonly maxFrameBytes: number;
  /** Sustained sync messages per second per connection (token bucket); default 200. */
  readonly updatesPerSecond: number;
  /** Bucket size for bursts of sync messages; default 1,000. */
  readonly updateBurst: number;
  /** Sustained awareness messages per second per connection; default 50, burst 4× that. */
  readonly awarenessPerSecond: number;
  /** Live sockets per room; one more closes with `roomFull`. Default 500. */
  readonly connectionsPerRoom: number;
  /** Stored bytes of one room document (snapshot + log); default 64 MiB. */
  readonly roomBytes: number;
  /** Largest JSON request body; default 1 MiB. */
  readonly requestBytes: number;
  /** Largest dump a document upload may carry; default 64 MiB. */
  readonly documentBytes: number;
  /** Largest profiler trace an upload may carry, decompressed (it is read as a stream, never held whole); default 4 GiB. */
  readonly traceBytes: number;
  /** Bytes queued for one socket beyond which it is dropped (it reconnects and resyncs); default 64 MiB. */
  readonly sendBufferBytes: number;
  /** Rooms one client address may create per minute (bursts up to the same number); default 20. */
  readonly roomsPerMinute: number;
  /** Rooms the whole server may create per hour, all addresses together (bursts up to the same number); default 1,000. */
  readonly roomsPerHour: number;
  /** Rooms the server may hold in all; one more is refused with `quota_exceeded`. Default 100,000. */
  readonly maxRooms: number;
  /** Documents one room may hold; one more is refused with `quota_exceeded`. Default 5,000: a dump folder with every pass dumped brings dozens per module. */
  readonly documentsPerRoom: number;
  /** Dump bytes (uncompressed) one room's documents may hold in all; default 512 MiB. */
  readonly roomDocumentBytes: number;
  /** Yjs structs plus deleted ranges one update may carry; more closes with 1009. Default 20,000 (1,600 annotations). */
  readonly itemsPerUpdate: number;
  /** Sustained Yjs structs plus deleted ranges per second per connection; default 10,000. */
  readonly itemsPerSecond: number;
  /** Bucket size for bursts of Yjs items (keep it at least `itemsPerUpdate`); more closes with 4008. Default 40,000. */
  readonly itemsBurst: number;
  /** Largest awareness state (JSON characters) of one client ID; bigger closes with 1009. Default 16 KiB. */
  readonly awarenessStateBytes: number;
  /** Awareness client IDs one socket may own; one more closes with 4008. Default 4. */
  readonly awarenessClientsPerSocket: number;
  /** Dumps longer than this (characters) are stored unindexed, with a diagnostic; default 64 Mi. */
  readonly analyzeChars: number;
  /** Analyses that run at once in worker threads; default 2. */
  readonly analyzerWorkers: number;
  /** Analyses that may wait for a worker; one more is refused with 503 `busy`. Default 8. */
  readonly analyzerQueue: number;
  /** Old-generation heap of one analysis worker (MB); a dump that needs more is stored unindexed. Default 2,048. */
  readonly analyzerHeapMb: number;
  /** Seconds one analysis may run; a dump that takes longer is stored unindexed. Default 120. */
  readonly analyzerSeconds: number;
  /** Seconds between pings; a socket that missed the last pong is dropped. Default 30. */
  readonly pingSeconds: number;
  /** Bytes of one room's replay history (updates and presenter samples); past it the oldest go first. Default 64 MiB. */
  readonly historyBytes: number;
  /** Seconds one room's replay history is kept; older entries go first. Default 30 days. */
  readonly historySeconds: number;
  /** Files one import (folder, archive or push) may hold; one more is refused with `too_many_files`. Default 5,000. */
  readonly importFiles: number;
  /** Bytes (uncompressed) one import may hold in all, counted as archives inflate; default 2 GiB. */
  readonly importBytes: number;
  /** Bytes (uncompressed) one file of an import may hold; default 256 MiB (a text dump is further held to `documentBytes`). */
  readonly importFileBytes: number;
  /** Bytes of blobs staged by `PUT …/blobs/:sha256` one room may hold at once; default 2 GiB. */
  readonly stagedBytes: number;
  /** Seconds a staged blob that no import used is kept; default 86,400 (a day). */
  readonly stagedSeconds: number;
}

/** Everything the server needs to start. `loadConfig` builds it from the environment. */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** Base of the links handed out, e.g. `https://seam.example.org`; default `http://HOST:PORT`. */
  readonly publicUrl: string | undefined;
  /** `false` when `SEAM_RUNNER=off`: no local runner is started. */
  readonly runner: boolean;
  readonly syncMode: SyncMode;
  /** Folder of the built web app, served at `/`; default `web/dist`. */
  readonly webDir: string | undefined;
  /** Seconds a room without connections stays loaded; default 30. */
  readonly idleUnloadSeconds: number;
  /** Log entries that trigger compaction into a snapshot; default 500. */
  readonly compactCount: number;
  /** Log bytes that trigger compaction into a snapshot; default 4 MiB. */
  readonly compactBytes: number;
  /** pino level; default `info`. */
  readonly logLevel: string;
  /** Who may create rooms (`SEAM_ROOM_CREATION`): `open` on loopback, `invite` elsewhere by default; `open` is refused off loopback. */
  readonly roomCreation: RoomCreation;
  /** `SEAM_OPERATOR_TOKEN`: a secret (32+ characters) that creates rooms without an invitation. */
  readonly operatorToken: string | undefined;
  /** Scaled mode (`SEAM_DATABASE_URL` and `SEAM_REDIS_URL`, both or neither); undefined: embedded mode. */
  readonly scaled: ScaledConfig | undefined;
  readonly limits: Limits;
}

/** Where the instances of a scaled deployment keep and exchange what they share (docs/storage.md). */
export interface ScaledConfig {
  /** `postgres://…` (or `postgresql://…`): the rooms, their tokens and their update logs. */
  readonly databaseUrl: string;
  /** `redis://…` (or `rediss://…`): the room bus between instances. */
  readonly redisUrl: string;
}

export const DEFAULT_LIMITS: Limits = {
  maxFrameBytes: 16 * 1024 * 1024,
  updatesPerSecond: 200,
  updateBurst: 1000,
  awarenessPerSecond: 50,
  connectionsPerRoom: 500,
  roomBytes: 64 * 1024 * 1024,
  requestBytes: 1024 * 1024,
  documentBytes: 64 * 1024 * 1024,
  traceBytes: 4 * 1024 * 1024 * 1024,
  sendBufferBytes: 64 * 1024 * 1024,
  roomsPerMinute: 20,
  roomsPerHour: 1000,
  maxRooms: 100_000,
  documentsPerRoom: 5000,
  roomDocumentBytes: 512 * 1024 * 1024,
  itemsPerUpdate: 20_000,
  itemsPerSecond: 10_000,
  itemsBurst: 40_000,
  awarenessStateBytes: 16 * 1024,
  awarenessClientsPerSocket: 4,
  analyzeChars: 64 * 1024 * 1024,
  analyzerWorkers: 2,
  analyzerQueue: 8,
  analyzerHeapMb: 2048,
  analyzerSeconds: 120,
  pingSeconds: 30,
  historyBytes: 64 * 1024 * 1024,
  historySeconds: 30 * 86_400,
  importFiles: 5000,
  importBytes: 2 * 1024 * 1024 * 1024,
  importFileBytes: 256 * 1024 * 1024,
  stagedBytes: 2 * 1024 * 1024 * 1024,
  stagedSeconds: 86_400,
};

export const DEFAULT_CONFIG: Config = {
  port: 8080,
  host: '127.0.0.1',
  dataDir: './data',
  publicUrl: undefined,
  runner: true,
  syncMode: SyncMode.normal,
  webDir: undefined,
  idleUnloadSeconds: 30,
  compactCount: 500,
  compactBytes: 4 * 1024 * 1024,
  logLevel: 'info',
  roomCreation: RoomCreation.open,
  operatorToken: undefined,
  scaled: undefined,
  limits: DEFAULT_LIMITS,
};

/** Thrown for an environment variable that cannot be used; the message names it. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The room-creation policy for `host`: `requested` (or the host's default), refused when it is `open` off loopback. */
function roomCreationFor(requested: string | undefined, host: string): RoomCreation {
  const mode = requested ? requested.toLowerCase() : defaultRoomCreation(host);
  if (mode !== RoomCreation.open && mode !== RoomCreation.invite) throw new ConfigError(`SEAM_ROOM_CREATION must be "open" or "invite", got "${requested}"`);
  const problem = roomCreationProblem(mode, host);
  if (problem) throw new ConfigError(problem);
  return mode;
}

/** Scaled mode from `SEAM_DATABASE_URL` and `SEAM_REDIS_URL`: both (each of its scheme) or neither. */
function scaledFrom(database: string | undefined, redis: string | undefined): ScaledConfig | undefined {
  const db = database || undefined;
  const bus = redis || undefined;
  if (db === undefined && bus === undefined) return undefined;
  if (db === undefined || bus === undefined) {
    throw new ConfigError(`scaled mode needs both SEAM_DATABASE_URL and SEAM_REDIS_URL; only ${db === undefined ? 'SEAM_REDIS_URL' : 'SEAM_DATABASE_URL'} is set`);
  }
  if (!/^postgres(ql)?:\/\/./.test(db)) throw new ConfigError('SEAM_DATABASE_URL must be a postgres:// URL');
  if (!/^rediss?:\/\/./.test(bus)) throw new ConfigError('SEAM_REDIS_URL must be a redis:// URL');
  return { databaseUrl: db, redisUrl: bus };
}

/** An operator token, when given, must be long enough not to be guessed. */
function operatorTokenFrom(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < 32 || /\s/.test(raw)) throw new ConfigError('SEAM_OPERATOR_TOKEN must be at least 32 characters without spaces (e.g. `openssl rand -base64 32`)');
  return raw;
}

function int(env: Record<string, string | undefined>, key: string, fallback: number, min = 0): number {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new ConfigError(`${key} must be an integer ≥ ${min}, got "${raw}"`);
  return n;
}

/**
 * Reads the configuration from environment variables: `PORT` (8080), `HOST` (127.0.0.1),
 * `SEAM_DATA_DIR` (./data), `SEAM_PUBLIC_URL`, `SEAM_RUNNER=off`, `SEAM_SYNC_MODE` (normal|full),
 * `SEAM_WEB_DIR`, `SEAM_IDLE_UNLOAD_S`, `SEAM_COMPACT_COUNT`, `SEAM_COMPACT_BYTES`, `SEAM_LOG_LEVEL`,
 * `SEAM_ROOM_CREATION` (open|invite; default by `HOST`), `SEAM_OPERATOR_TOKEN`, `SEAM_DATABASE_URL`
 * with `SEAM_REDIS_URL` (scaled mode),
 * and the limits `SEAM_MAX_FRAME_BYTES`, `SEAM_UPDATES_PER_S`, `SEAM_UPDATE_BURST`,
 * `SEAM_AWARENESS_PER_S`, `SEAM_CONNECTIONS_PER_ROOM`, `SEAM_ROOM_BYTES`, `SEAM_REQUEST_BYTES`,
 * `SEAM_DOCUMENT_BYTES`, `SEAM_SEND_BUFFER_BYTES`, `SEAM_ROOMS_PER_MIN`, `SEAM_ROOMS_PER_HOUR`,
 * `SEAM_MAX_ROOMS`, `SEAM_DOCUMENTS_PER_ROOM`, `SEAM_ROOM_DOCUMENT_BYTES`, `SEAM_ITEMS_PER_UPDATE`,
 * `SEAM_ITEMS_PER_S`, `SEAM_ITEMS_BURST`, `SEAM_AWARENESS_STATE_BYTES`, `SEAM_AWARENESS_CLIENTS`,
 * `SEAM_ANALYZE_CHARS`, `SEAM_ANALYZER_WORKERS`, `SEAM_ANALYZER_QUEUE`, `SEAM_ANALYZER_HEAP_MB`,
 * `SEAM_ANALYZER_S`, `SEAM_PING_S`, `SEAM_IMPORT_FILES`, `SEAM_IMPORT_BYTES`, `SEAM_IMPORT_FILE_BYTES`,
 * `SEAM_STAGED_BYTES`, `SEAM_STAGED_S`, `SEAM_HISTORY_BYTES`, `SEAM_HISTORY_S`. Throws `ConfigError` for a value it cannot use.
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const d = DEFAULT_CONFIG;
  const l = DEFAULT_LIMITS;
  const mode = (env.SEAM_SYNC_MODE ?? 'normal').toLowerCase();
  if (mode !== 'normal' && mode !== 'full') throw new ConfigError(`SEAM_SYNC_MODE must be "normal" or "full", got "${mode}"`);
  const host = env.HOST || d.host;
  return {
    port: int(env, 'PORT', d.port),
    host,
    dataDir: env.SEAM_DATA_DIR || d.dataDir,
    publicUrl: env.SEAM_PUBLIC_URL || undefined,
    runner: env.SEAM_RUNNER !== 'off',
    syncMode: mode === 'full' ? SyncMode.full : SyncMode.normal,
    webDir: env.SEAM_WEB_DIR || undefined,
    idleUnloadSeconds: int(env, 'SEAM_IDLE_UNLOAD_S', d.idleUnloadSeconds),
    compactCount: int(env, 'SEAM_COMPACT_COUNT', d.compactCount, 1),
    compactBytes: int(env, 'SEAM_COMPACT_BYTES', d.compactBytes, 1),
    logLevel: env.SEAM_LOG_LEVEL || d.logLevel,
    roomCreation: roomCreationFor(env.SEAM_ROOM_CREATION, host),
    operatorToken: operatorTokenFrom(env.SEAM_OPERATOR_TOKEN),
    scaled: scaledFrom(env.SEAM_DATABASE_URL, env.SEAM_REDIS_URL),
    limits: {
      maxFrameBytes: int(env, 'SEAM_MAX_FRAME_BYTES', l.maxFrameBytes, 1024),
      updatesPerSecond: int(env, 'SEAM_UPDATES_PER_S', l.updatesPerSecond, 1),
      updateBurst: int(env, 'SEAM_UPDATE_BURST', l.updateBurst, 1),
      awarenessPerSecond: int(env, 'SEAM_AWARENESS_PER_S', l.awarenessPerSecond, 1),
      connectionsPerRoom: int(env, 'SEAM_CONNECTIONS_PER_ROOM', l.connectionsPerRoom, 1),
      roomBytes: int(env, 'SEAM_ROOM_BYTES', l.roomBytes, 1024),
      requestBytes: int(env, 'SEAM_REQUEST_BYTES', l.requestBytes, 1024),
      documentBytes: int(env, 'SEAM_DOCUMENT_BYTES', l.documentBytes, 1024),
      traceBytes: int(env, 'SEAM_TRACE_BYTES', l.traceBytes, 1024),
      sendBufferBytes: int(env, 'SEAM_SEND_BUFFER_BYTES', l.sendBufferBytes, 1024),
      roomsPerMinute: int(env, 'SEAM_ROOMS_PER_MIN', l.roomsPerMinute, 1),
      roomsPerHour: int(env, 'SEAM_ROOMS_PER_HOUR', l.roomsPerHour, 1),
      maxRooms: int(env, 'SEAM_MAX_ROOMS', l.maxRooms, 1),
      documentsPerRoom: int(env, 'SEAM_DOCUMENTS_PER_ROOM', l.documentsPerRoom, 1),
      roomDocumentBytes: int(env, 'SEAM_ROOM_DOCUMENT_BYTES', l.roomDocumentBytes, 1024),
      itemsPerUpdate: int(env, 'SEAM_ITEMS_PER_UPDATE', l.itemsPerUpdate, 100),
      itemsPerSecond: int(env, 'SEAM_ITEMS_PER_S', l.itemsPerSecond, 1),
      itemsBurst: int(env, 'SEAM_ITEMS_BURST', l.itemsBurst, 100),
      awarenessStateBytes: int(env, 'SEAM_AWARENESS_STATE_BYTES', l.awarenessStateBytes, 256),
      awarenessClientsPerSocket: int(env, 'SEAM_AWARENESS_CLIENTS', l.awarenessClientsPerSocket, 1),
      analyzeChars: int(env, 'SEAM_ANALYZE_CHARS', l.analyzeChars, 1),
      analyzerWorkers: int(env, 'SEAM_ANALYZER_WORKERS', l.analyzerWorkers, 1),
      analyzerQueue: int(env, 'SEAM_ANALYZER_QUEUE', l.analyzerQueue),
      analyzerHeapMb: int(env, 'SEAM_ANALYZER_HEAP_MB', l.analyzerHeapMb, 16),
      analyzerSeconds: int(env, 'SEAM_ANALYZER_S', l.analyzerSeconds, 1),
      pingSeconds: int(env, 'SEAM_PING_S', l.pingSeconds, 1),
      historyBytes: int(env, 'SEAM_HISTORY_BYTES', l.historyBytes, 1024),
      historySeconds: int(env, 'SEAM_HISTORY_S', l.historySeconds, 1),
      importFiles: int(env, 'SEAM_IMPORT_FILES', l.importFiles, 1),
      importBytes: int(env, 'SEAM_IMPORT_BYTES', l.importBytes, 1024),
      importFileBytes: int(env, 'SEAM_IMPORT_FILE_BYTES', l.importFileBytes, 1024),
      stagedBytes: int(env, 'SEAM_STAGED_BYTES', l.stagedBytes, 1024),
      stagedSeconds: int(env, 'SEAM_STAGED_S', l.stagedSeconds, 1),
    },
  };
}

/**
 * Fills a partial config (as tests pass it) with the defaults, limits merged field by field; the
 * room-creation policy defaults by host and is checked as `loadConfig` checks it.
 */
export function resolveConfig(partial: Partial<Omit<Config, 'limits'>> & { limits?: Partial<Limits> }): Config {
  const roomCreation = roomCreationFor(partial.roomCreation, partial.host ?? DEFAULT_CONFIG.host);
  return { ...DEFAULT_CONFIG, ...partial, roomCreation, limits: { ...DEFAULT_LIMITS, ...partial.limits } };
}
