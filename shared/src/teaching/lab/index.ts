export * from './lab-format';
export * from './room-data';
export * from './checks';
export * from './evaluate';
export * from './lab-doc';
export { runsLabCapture } from './captures-of';
