import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_CONFIG, loadConfig } from './config';

describe('loadConfig', () => {
  it('uses the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 8080, host: '127.0.0.1', dataDir: './data', runner: true, syncMode: 'NORMAL' });
    expect(c.limits).toEqual(DEFAULT_CONFIG.limits);
  });

  it('reads every setting from the environment', () => {
    const c = loadConfig({ PORT: '0', HOST: '0.0.0.0', SEAM_DATA_DIR: '/d', SEAM_RUNNER: 'off', SEAM_SYNC_MODE: 'FULL', SEAM_MAX_FRAME_BYTES: '2048', SEAM_PUBLIC_URL: 'https://x' });
    expect(c).toMatchObject({ port: 0, host: '0.0.0.0', dataDir: '/d', runner: false, syncMode: 'FULL', publicUrl: 'https://x' });
    expect(c.limits.maxFrameBytes).toBe(2048);
  });

  it('reads the limits that bound the work of one member, with safe defaults', () => {
    expect(DEFAULT_CONFIG.limits).toMatchObject({
      roomsPerMinute: 20, roomsPerHour: 1000, maxRooms: 100_000, documentsPerRoom: 5000, roomDocumentBytes: 512 * 1024 * 1024,
      itemsPerUpdate: 20_000, itemsPerSecond: 10_000, itemsBurst: 40_000, awarenessStateBytes: 16 * 1024, awarenessClientsPerSocket: 4,
      analyzeChars: 64 * 1024 * 1024, analyzerWorkers: 2, analyzerQueue: 8, analyzerHeapMb: 2048, analyzerSeconds: 120,
    });
    const c = loadConfig({
      SEAM_ROOMS_PER_MIN: '5', SEAM_ROOMS_PER_HOUR: '50', SEAM_MAX_ROOMS: '500', SEAM_DOCUMENTS_PER_ROOM: '7', SEAM_ROOM_DOCUMENT_BYTES: '4096',
      SEAM_ITEMS_PER_UPDATE: '1000', SEAM_ITEMS_PER_S: '300', SEAM_ITEMS_BURST: '2000', SEAM_AWARENESS_STATE_BYTES: '1024', SEAM_AWARENESS_CLIENTS: '2',
      SEAM_ANALYZE_CHARS: '9', SEAM_ANALYZER_WORKERS: '3', SEAM_ANALYZER_QUEUE: '0', SEAM_ANALYZER_HEAP_MB: '256', SEAM_ANALYZER_S: '30',
    });
    expect(c.limits).toMatchObject({
      roomsPerMinute: 5, roomsPerHour: 50, maxRooms: 500, documentsPerRoom: 7, roomDocumentBytes: 4096,
      itemsPerUpdate: 1000, itemsPerSecond: 300, itemsBurst: 2000, awarenessStateBytes: 1024, awarenessClientsPerSocket: 2,
      analyzeChars: 9, analyzerWorkers: 3, analyzerQueue: 0, analyzerHeapMb: 256, analyzerSeconds: 30,
    });
    expect(() => loadConfig({ SEAM_ANALYZER_WORKERS: '0' })).toThrow(/SEAM_ANALYZER_WORKERS/);
    expect(() => loadConfig({ SEAM_ITEMS_PER_UPDATE: 'many' })).toThrow(/SEAM_ITEMS_PER_UPDATE/);
  });

  it('names the variable it cannot use', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ SEAM_SYNC_MODE: 'off' })).toThrow(/SEAM_SYNC_MODE/);
    expect(() => loadConfig({ SEAM_ROOM_BYTES: '-1' })).toThrow(/SEAM_ROOM_BYTES/);
  });

  it('reads scaled mode from both URLs, and refuses one without the other or a URL of another scheme', () => {
    expect(loadConfig({}).scaled).toBeUndefined();
    const c = loadConfig({ SEAM_DATABASE_URL: 'postgres://seam@127.0.0.1:5432/seam', SEAM_REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(c.scaled).toEqual({ databaseUrl: 'postgres://seam@127.0.0.1:5432/seam', redisUrl: 'redis://127.0.0.1:6379' });
    expect(() => loadConfig({ SEAM_DATABASE_URL: 'postgres://h/db' })).toThrow(ConfigError);
    expect(() => loadConfig({ SEAM_DATABASE_URL: 'postgres://h/db' })).toThrow(/SEAM_REDIS_URL/);
    expect(() => loadConfig({ SEAM_REDIS_URL: 'redis://h' })).toThrow(/SEAM_DATABASE_URL/);
    expect(() => loadConfig({ SEAM_DATABASE_URL: 'mysql://h/db', SEAM_REDIS_URL: 'redis://h' })).toThrow(/SEAM_DATABASE_URL must be a postgres/);
    expect(() => loadConfig({ SEAM_DATABASE_URL: 'postgres://h/db', SEAM_REDIS_URL: 'http://h' })).toThrow(/SEAM_REDIS_URL must be a redis/);
  });
});
