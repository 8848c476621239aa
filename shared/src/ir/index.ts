export * from './analyze';
export * from './detect';
export * from './types';
export * from './link';
