import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { Hono, type MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';

/**
 * The headers every response carries (API, web app, errors, the 404 page, `/healthz`, `/metrics`,
 * and the refusals of WebSocket upgrades), built with Hono's `secureHeaders`.
 *
 * The Content-Security-Policy allows only this origin's scripts (plus the inline scripts of the
 * built `index.html`, by hash), workers, sockets and styles; inline styles stay allowed because
 * Svelte and CodeMirror set `style` attributes. Nothing may frame the app, no plugin runs, and no
 * `<base>` may move its links. Strict-Transport-Security is left to whoever terminates TLS.
 */
export function securityHeaders(inlineScriptHashes: readonly string[] = []): MiddlewareHandler {
  return secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'", ...inlineScriptHashes.map((h) => `'${h}'`)],
      styleSrc: ["'self'", "'unsafe-inline'"],
      workerSrc: ["'self'"],
      connectSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      frameAncestors: ["'none'"],
      formAction: ["'self'"],
    },
    xFrameOptions: 'DENY',
    referrerPolicy: 'no-referrer',
    // Popups this page opens keep their opener: "Open in Perfetto UI" hands the tab its trace by postMessage.
    crossOriginOpenerPolicy: 'same-origin-allow-popups',
    strictTransportSecurity: false,
  });
}

/**
 * API answers are about one room and read with its token: unless a route chose its own caching
 * (the content-addressed dump bodies are `private, immutable`), none may be stored anywhere.
 */
export const apiNoStore: MiddlewareHandler = async (c, next) => {
  await next();
  if (!c.res.headers.has('Cache-Control')) c.res.headers.set('Cache-Control', 'no-store');
};

/** `sha256-…` of each inline `<script>` (one without `src`) in an HTML page, for the CSP's `script-src`. */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    if (/\bsrc\s*=/i.test(m[1] ?? '')) continue;
    hashes.push(`sha256-${createHash('sha256').update(m[2] ?? '').digest('base64')}`);
  }
  return hashes;
}

/** The inline script hashes of the built web app's `index.html` in `webDir`; none when there is no build. */
export function webAppScriptHashes(webDir: string | undefined): string[] {
  if (!webDir) return [];
  try {
    return inlineScriptHashes(readFileSync(join(webDir, 'index.html'), 'utf8'));
  } catch {
    return [];
  }
}

const REASONS = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' };

let rawHeaders: Promise<string> | undefined;

/** The security headers as raw HTTP header lines, taken once from the same middleware the app uses. */
function securityHeaderLines(): Promise<string> {
  rawHeaders ??= (async () => {
    const res = await new Hono().use(securityHeaders()).all('*', (c) => c.body(null, 204)).request('/');
    return [...res.headers].map(([k, v]) => `${k}: ${v}\r\n`).join('');
  })();
  return rawHeaders;
}

/**
 * Answers a refused WebSocket upgrade with `status`, an empty body and the security headers, then
 * closes the socket. Resolves once the answer is written.
 */
export async function refuseUpgrade(socket: Duplex, status: 400 | 401 | 403 | 404): Promise<void> {
  const headers = await securityHeaderLines();
  if (socket.destroyed) return;
  socket.end(`HTTP/1.1 ${status} ${REASONS[status]}\r\n${headers}Connection: close\r\nContent-Length: 0\r\n\r\n`);
}
