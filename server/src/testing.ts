import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Hono } from 'hono';
import { CloseCode } from '@seam/shared/protocol';
import { createApp, type AppDeps } from './app';
import { resolveConfig, type Config, type Limits } from './config';
import { buildDeps } from './deps';

/** What `POST /api/rooms` answers, as route tests use it. */
export interface TestRoom {
  readonly id: string;
  readonly tokens: Record<'owner' | 'annotator' | 'viewer', string>;
  readonly links: Record<string, string>;
}

/** A four-line HLO module, for route tests that need some dump in a room. */
export const TINY_HLO = 'HloModule m\nENTRY e {\n  ROOT p = f32[4]{0} parameter(0)\n}\n';

/** An app over a real store in a temp dir, for route tests with `app.request()`. */
export interface TestApp {
  readonly app: Hono;
  readonly deps: AppDeps;
  /** `app.request` with a JSON body and a bearer token. */
  call(method: string, path: string, opts?: { token?: string; json?: unknown; body?: string; headers?: Record<string, string> }): Promise<Response>;
  /** Creates a room and returns the API's answer. */
  room(title?: string): Promise<TestRoom>;
  /** Adds a dump to `room` as its owner (`POST …/documents` with JSON); returns its id. */
  addDocument(room: { id: string; tokens: { owner: string } }, title: string, text: string): Promise<string>;
  close(): void;
}

/** Builds a `TestApp`; `limits` override the defaults field by field, `policy` who may create rooms. */
export function testApp(limits: Partial<Limits> = {}, policy: Partial<Pick<Config, 'roomCreation' | 'operatorToken'>> = {}): TestApp {
  const dataDir = mkdtempSync(join(tmpdir(), 'seam-app-'));
  const config = resolveConfig({ dataDir, limits, publicUrl: 'https://seam.test', ...policy });
  const deps = buildDeps(config, pino({ level: 'silent' }));
  const app = createApp(deps);
  const call: TestApp['call'] = (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body = opts.body;
    if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.json);
    }
    return Promise.resolve(app.request(path, { method, headers, ...(body !== undefined ? { body } : {}) }));
  };
  return {
    app, deps, call,
    room: async (title = 'room') => {
      const res = await call('POST', '/api/rooms', { json: { title } });
      if (res.status !== 201) throw new Error(`room creation answered ${res.status}`);
      return (await res.json()) as TestRoom;
    },
    addDocument: async (room, title, text) => {
      const res = await call('POST', `/api/rooms/${room.id}/documents`, { token: room.tokens.owner, json: { title, text } });
      if (res.status !== 201) throw new Error(`document upload answered ${res.status}`);
      return ((await res.json()) as { id: string }).id;
    },
    close: () => {
      void deps.analyzer.close();
      deps.rooms.closeAll(CloseCode.goingAway);
      deps.store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A `TestApp` with one room titled `roomTitle` that holds `TINY_HLO` as document `docTitle`. */
export async function testAppWithDump(roomTitle: string, docTitle: string): Promise<{ t: TestApp; room: TestRoom; docId: string }> {
  const t = testApp();
  const room = await t.room(roomTitle);
  return { t, room, docId: await t.addDocument(room, docTitle, TINY_HLO) };
}
