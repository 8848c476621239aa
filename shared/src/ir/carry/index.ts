export { alignKeys, alignLines, LCS_CELLS } from './align';
export { carryDocument, MAX_CARRIED, pairDocuments, type CarryContext } from './carry';
export { linesOf, mapLines, type LineMap, type Lines } from './line-map';
export { normalizeHlo, normalizeJaxpr, normalizeMlir, normalizerOf } from './normalize';
export { findQuote, placeAnnotation, type Placement } from './place';
