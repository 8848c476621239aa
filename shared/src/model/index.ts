export * from './annotation';
export * from './document';
export * from './roles';
export * from './room-schema';
export * from './jobs';
export * from './annotation-doc';
export * from './api';
export * from './export';
