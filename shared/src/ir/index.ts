export * from './analyze';
export * from './detect';
export * from './types';
