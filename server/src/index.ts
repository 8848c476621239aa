export { createApp, type AppDeps } from './app';
export { DEFAULT_CONFIG, DEFAULT_LIMITS, loadConfig, resolveConfig, SyncMode, ConfigError, type Config, type Limits } from './config';
export { startServer, type RunningServer, type StartOptions } from './server';
export { RunnerTokens, RUNNER_TOKEN_PREFIX, type RunnerTokenInfo } from './jobs/runner-tokens';
export { openDatabase } from './store/db';
export { runTokenCli } from './jobs/token-cli';
export { ANALYSIS_WORKER_LIMITS, startAnalysisWorker } from './analyzer';
