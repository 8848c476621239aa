import { parentPort } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { analyze } from '@seam/shared/ir';
import type { DocumentKind } from '@seam/shared/model';

/** Worker side of `Analyzer`: analyzes one dump per message and answers with the gzipped JSON. */
parentPort?.on('message', (msg: { id: number; text: string; kind: DocumentKind }) => {
  try {
    const json = JSON.stringify(analyze(msg.text, msg.kind));
    const gz = gzipSync(Buffer.from(json, 'utf8'));
    const out = new Uint8Array(gz.buffer, gz.byteOffset, gz.byteLength);
    parentPort?.postMessage({ id: msg.id, gz: out }, [out.buffer as ArrayBuffer]);
  } catch (err) {
    parentPort?.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) });
  }
});
