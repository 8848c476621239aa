import { readFileSync } from 'node:fs';

/** A real capture folder of naive attention on the CPU (`test/fixtures/gate/attention-cpu/`). */
const dir = new URL('../fixtures/gate/attention-cpu/', import.meta.url);

/** Its optimized HLO, as the capture wrote it. */
export const ATTENTION_HLO = readFileSync(new URL('hlo-opt.txt', dir), 'utf8');

/** The Perfetto trace (gzipped JSON) JAX's profiler wrote of the same program. */
export const ATTENTION_TRACE_GZ = readFileSync(new URL('trace.json.gz', dir));
