export * from './model/index';
export * from './protocol/index';
