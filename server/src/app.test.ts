import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createApp } from './app';
import { resolveConfig } from './config';
import { buildDeps } from './deps';

describe('createApp logging', () => {
  it('never writes a token to the log, whether sent as a header or in the query', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
    const dataDir = mkdtempSync(join(tmpdir(), 'seam-log-'));
    const deps = buildDeps(resolveConfig({ dataDir }), pino({ level: 'trace' }, sink));
    try {
      const app = createApp(deps);
      const created = await app.request('/api/rooms', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"t"}' });
      const room = (await created.json()) as { id: string; tokens: Record<string, string> };
      await app.request(`/api/rooms/${room.id}?token=${room.tokens.viewer}`);
      await app.request(`/api/rooms/${room.id}`, { headers: { authorization: `Bearer ${room.tokens.owner}` } });
      await app.request(`/api/rooms/${room.id}/links/annotator/rotate?token=${room.tokens.owner}`, { method: 'POST' });
      const log = lines.join('');
      expect(log).toContain(`/api/rooms/${room.id}`);
      for (const token of Object.values(room.tokens)) expect(log).not.toContain(token);
    } finally {
      await deps.analyzer.close();
      deps.store.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
