import { TraceFormat } from './types';

/**
 * The format of a trace from its first (decompressed) bytes: JSON when the first character that is
 * not whitespace (after a UTF-8 byte-order mark) is `{` or `[`, else XSpace, whose first byte is a
 * protobuf field header (the reducer then checks it is one). Undefined when `head` is only whitespace.
 */
export function sniffTraceFormat(head: Uint8Array): TraceFormat | undefined {
  let i = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (i < head.length && (head[i] === 0x20 || head[i] === 0x0a || head[i] === 0x0d || head[i] === 0x09)) i++;
  if (i === head.length) return undefined;
  return head[i] === 0x7b || head[i] === 0x5b ? TraceFormat.chromeJson : TraceFormat.xplane;
}

/** Whether bytes begin as gzip does. */
export const isGzip = (head: Uint8Array): boolean => head[0] === 0x1f && head[1] === 0x8b;
