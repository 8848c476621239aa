import { parentPort } from 'node:worker_threads';
import { gunzipSync, gzipSync } from 'node:zlib';
import { analyze } from '@seam/shared/ir';
import { analysisForms, partForms } from './analysis-forms';
import type { AnalyzerJob, AnalyzerReply } from './analyzer';

/**
 * Worker side of `Analyzer`: per message, analyzes one dump into every stored form, or splits a
 * whole stored analysis into its parts; answers with the gzipped JSON, transferred.
 */
parentPort?.on('message', (job: AnalyzerJob) => {
  try {
    const forms = 'text' in job ? analysisForms(analyze(job.text, job.kind)) : partForms(gunzipSync(job.analysisGzip));
    const out: Record<string, Uint8Array> = {};
    const transfer: ArrayBuffer[] = [];
    for (const [k, json] of Object.entries(forms)) {
      // A copy owns its buffer; small zlib outputs may share Node's pool, which cannot be transferred.
      const gz = new Uint8Array(gzipSync(json));
      out[k] = gz;
      transfer.push(gz.buffer);
    }
    parentPort?.postMessage({ id: job.id, forms: out } satisfies AnalyzerReply, transfer);
  } catch (err) {
    parentPort?.postMessage({ id: job.id, error: err instanceof Error ? err.message : String(err) } satisfies AnalyzerReply);
  }
});
