/**
 * One thing to add to a room: a dump's text (sent as JSON), or a trace sent as the raw body of the
 * trace upload, streamed from the file (`docs/formats.md`, "Ways in") and never read into a string.
 */
export type UploadItem =
  | { readonly title: string; readonly text: string }
  | { readonly title: string; readonly body: Blob; readonly contentType: string };

/** Bytes read to tell a trace from a dump. */
export const SNIFF_BYTES = 64 * 1024;

/** Names that are traces whatever their bytes: gzipped JSON and XProf's XSpace. */
const TRACE_NAME = /\.(json\.gz|xplane\.pb)$/i;

/** gzip's magic: the first two bytes of every gzip member. */
export function isGzip(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/** The start of a Chrome/Perfetto JSON trace: an object with `traceEvents`, or an array of events with `ph`. */
export function looksLikeJsonTrace(head: string): boolean {
  const s = head.replace(/^\uFEFF/, '');
  if (/^\s*\{/.test(s)) return /"traceEvents"\s*:/.test(s);
  return /^\s*\[\s*\{/.test(s) && /"ph"\s*:/.test(s);
}

/** `head` decoded as UTF-8, or null when it is not (a character cut at the end of the slice is allowed). */
function utf8Head(head: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
  } catch {
    return null;
  }
}

/**
 * How `file` enters the room: a trace (by its name, gzip's magic, bytes that are not UTF-8, or a
 * `.json` that begins like a Perfetto trace) as a raw body; anything else as its text.
 */
export async function uploadItem(file: Blob & { readonly name: string }): Promise<UploadItem> {
  const title = file.name;
  const head = new Uint8Array(await file.slice(0, SNIFF_BYTES).arrayBuffer());
  const raw = (contentType: string): UploadItem => ({ title, body: file, contentType });
  if (isGzip(head)) return raw('application/gzip');
  if (/\.xplane\.pb$/i.test(title)) return raw('application/x-protobuf');
  if (TRACE_NAME.test(title)) return raw('application/octet-stream');
  const text = utf8Head(head);
  if (text === null) return raw('application/octet-stream');
  if (/\.json$/i.test(title) && looksLikeJsonTrace(text)) return raw('application/octet-stream');
  try {
    return { title, text: new TextDecoder('utf-8', { fatal: true }).decode(await file.arrayBuffer()) };
  } catch {
    return raw('application/octet-stream');
  }
}
