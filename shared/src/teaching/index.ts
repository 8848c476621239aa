export * from './drill/index';
export * from './lab/index';
