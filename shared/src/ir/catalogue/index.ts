export * from './types';
export { catalogue, dtypeOfType, REMAT_LABELS } from './catalogue';
export { castSources } from './cast-sources';
export { layerCard } from './card';
export { catalogueAgainst, entryCount } from './against';
export { catalogueMarkdown } from './markdown';
