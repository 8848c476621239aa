export { prepareLocal, type EnsureVenv } from './agent/local';
export { isLiveProcess } from './testing';
