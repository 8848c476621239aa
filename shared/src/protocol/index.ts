export * from './close-codes';
export * from './messages';
