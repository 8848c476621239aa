export { prepareLocal, type EnsureVenv } from './agent/local';
export { isLiveProcess } from './testing';
export { ensureVenv, type EnsureVenvResult } from './venv';
export { BENCH_VENV, TRACE_REFERENCE_SCRIPT, ensureBenchVenv } from './bench-venv';
