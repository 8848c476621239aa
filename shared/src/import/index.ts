export * from './dump-names';
export * from './module-groups';
export * from './paths';
