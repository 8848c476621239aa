export * from './history-format';
