export { prepareLocal, type EnsureVenv } from './agent/local';
export { isLiveProcess } from './testing';
export { ensureVenv, type EnsureVenvResult } from './venv';
export { BENCH_VENV, TRACE_REFERENCE_SCRIPT, ensureBenchVenv } from './bench-venv';
export { Agent } from './agent/agent';
export { executeConfig, parseCli } from './agent/config';
export { probeIsolation } from './agent/isolation';
export { pinnedCapabilities } from './agent/local';
export { Preparation, preparingPhase } from './agent/preparation';
