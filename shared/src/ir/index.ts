export * from './analyze';
export * from './detect';
export * from './types';
export * from './link';
export * from './shape';
export * from './analysis-parts';
export * from './value-columns';
export * from './gate';
export { indexHlo, parseHlo } from './hlo/index';
