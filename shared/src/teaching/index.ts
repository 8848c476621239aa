export * from './drill/index';
