export * from './types';
export * from './generate';
export * from './check';
export { canonicalEinsum } from './einsum-answer';
export { readDimPair } from './dims-answer';
export { readBytes, BYTES_TOLERANCE } from './bytes-answer';
export * from './api';
export * from './room-drills';
export { seededRandom } from './seeded';
