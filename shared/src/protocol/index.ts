export * from './close-codes';
export * from './messages';
export * from './ack';
export * from './refused';
export * from './runner';
export * from './frames';
export * from './awareness';
