export * from './types';
export { catalogue, dtypeOfType, REMAT_LABELS } from './catalogue';
export { readTextDetails, type CastSource, type TextDetails } from './text-details';
export { readShardings, MAX_SHARDING_CHARS, type ShardingAttribute } from './shardings';
export { layerCard } from './card';
export { catalogueAgainst, entryCount } from './against';
export { catalogueMarkdown, CATALOGUE_LAYER_TITLES } from './markdown';
export { catalogueDocsOf, programGroups } from './docs';
