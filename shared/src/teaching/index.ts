export * from './drill/index';
export * from './lab/index';
export * from './replay/index';
