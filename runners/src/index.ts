export { prepareLocal, type EnsureVenv } from './agent/local';
