/** How far a request body has gone: bytes sent of the total. */
export interface SendProgress {
  readonly loaded: number;
  readonly total: number;
}

/** One request whose body's progress is reported, answered as a `Response`. */
export interface ProgressRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Headers;
  readonly body: XMLHttpRequestBodyInit;
  readonly onProgress?: (p: SendProgress) => void;
  readonly signal?: AbortSignal;
}

/** Sends a request and reports its body's progress; resolves with the answer whatever its status. */
export type ProgressSender = (req: ProgressRequest) => Promise<Response>;

/** Statuses whose `Response` may not carry a body. */
const NULL_BODY = new Set([101, 204, 205, 304]);

/** `XMLHttpRequest.getAllResponseHeaders()` as `Headers` (`name: value` lines, CRLF-separated). */
function parseHeaders(raw: string): Headers {
  const h = new Headers();
  for (const line of raw.trim().split(/[\r\n]+/)) {
    const at = line.indexOf(':');
    if (at > 0) h.append(line.slice(0, at).trim(), line.slice(at + 1).trim());
  }
  return h;
}

/**
 * Sends with `XMLHttpRequest`, whose `upload` progress events are the browser's only report of how
 * much of a request body has gone (fetch has none). Rejects with an `AbortError` when `signal`
 * aborts and with a `TypeError` when the network fails, as fetch does.
 */
export const xhrSend: ProgressSender = (req) =>
  new Promise((resolve, reject) => {
    if (req.signal?.aborted) {
      reject(new DOMException('The upload was cancelled.', 'AbortError'));
      return;
    }
    const xhr = new XMLHttpRequest();
    xhr.open(req.method, req.url);
    xhr.responseType = 'blob';
    req.headers.forEach((value, name) => xhr.setRequestHeader(name, value));
    const onProgress = req.onProgress;
    if (onProgress) xhr.upload.onprogress = (e) => onProgress({ loaded: e.loaded, total: e.lengthComputable ? e.total : 0 });
    const abort = () => xhr.abort();
    req.signal?.addEventListener('abort', abort, { once: true });
    const settle = () => req.signal?.removeEventListener('abort', abort);
    xhr.onload = () => {
      settle();
      const body = NULL_BODY.has(xhr.status) ? null : (xhr.response as Blob);
      resolve(new Response(body, { status: xhr.status, statusText: xhr.statusText, headers: parseHeaders(xhr.getAllResponseHeaders()) }));
    };
    xhr.onerror = () => {
      settle();
      reject(new TypeError(`network error sending ${req.method} ${req.url}`));
    };
    xhr.onabort = () => {
      settle();
      reject(new DOMException('The upload was cancelled.', 'AbortError'));
    };
    xhr.send(req.body);
  });

/**
 * Sends with `fetcher` where there is no `XMLHttpRequest` (Node, workers): progress is reported
 * once, when the whole body has gone.
 */
export function fetchSend(fetcher: typeof fetch): ProgressSender {
  return async (req) => {
    const total = req.body instanceof Blob ? req.body.size : typeof req.body === 'string' ? new TextEncoder().encode(req.body).length : 0;
    const res = await fetcher(req.url, { method: req.method, headers: req.headers, body: req.body as BodyInit, signal: req.signal ?? null });
    req.onProgress?.({ loaded: total, total });
    return res;
  };
}

/** `xhrSend` in a browser, else `fetchSend(fetcher)`. */
export function defaultSender(fetcher: typeof fetch): ProgressSender {
  return typeof XMLHttpRequest === 'function' ? xhrSend : fetchSend(fetcher);
}
