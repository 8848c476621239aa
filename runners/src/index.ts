export { startLocalRunner, type LocalRunner, type LocalRunnerOptions } from './agent/local';
