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

  it('names the variable it cannot use', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ SEAM_SYNC_MODE: 'off' })).toThrow(/SEAM_SYNC_MODE/);
    expect(() => loadConfig({ SEAM_ROOM_BYTES: '-1' })).toThrow(/SEAM_ROOM_BYTES/);
  });
});
