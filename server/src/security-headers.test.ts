import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { apiNoStore, inlineScriptHashes, refuseUpgrade, securityHeaders } from './security-headers';

const sha = (s: string) => `sha256-${createHash('sha256').update(s).digest('base64')}`;

describe('security headers', () => {
  it('hash each inline script of a page, and no script loaded from a file', () => {
    const html = '<script>a()</script><script type="module" src="/x.js"></script><SCRIPT>\n b() \n</SCRIPT >';
    expect(inlineScriptHashes(html)).toEqual([sha('a()'), sha('\n b() \n')]);
    expect(inlineScriptHashes('<p>no scripts</p>')).toEqual([]);
  });

  it('put the policy on answers and errors alike, with the inline hashes in script-src', async () => {
    const app = new Hono().use(securityHeaders([sha('a()')])).use('/api/*', apiNoStore);
    app.get('/api/ok', (c) => c.json({}));
    app.get('/api/cached', (c) => c.body('x', 200, { 'Cache-Control': 'private, max-age=60' }));
    app.get('/boom', () => {
      throw new Error('boom');
    });
    app.onError((_e, c) => c.text('failed', 500));
    for (const path of ['/api/ok', '/boom', '/missing']) {
      const res = await app.request(path);
      expect(res.headers.get('content-security-policy'), path).toContain(`script-src 'self' '${sha('a()')}';`);
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      expect(res.headers.get('strict-transport-security'), path).toBeNull();
    }
    expect((await app.request('/api/ok')).headers.get('cache-control')).toBe('no-store');
    expect((await app.request('/api/cached')).headers.get('cache-control')).toBe('private, max-age=60');
    expect((await app.request('/boom')).headers.get('cache-control')).toBeNull();
  });

  it('answer a refused upgrade with its status, the same headers and an empty body', async () => {
    const socket = new PassThrough();
    let written = '';
    socket.on('data', (d: Buffer) => (written += d.toString()));
    await refuseUpgrade(socket, 401);
    await new Promise((r) => socket.once('end', r));
    const [head, body] = written.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 401 Unauthorized\r\n/);
    expect(head).toMatch(/\r\ncontent-security-policy: default-src 'self';/i);
    expect(head).toMatch(/\r\nx-content-type-options: nosniff\r\n/i);
    expect(head).toMatch(/\r\nContent-Length: 0$/);
    expect(body).toBe('');
  });
});
