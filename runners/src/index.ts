export { prepareLocal, type EnsureVenv } from './agent/local';
export { isLiveProcess } from './testing';
export { ensureVenv, type EnsureVenvResult } from './venv';
