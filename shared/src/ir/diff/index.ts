export { diffModules, type DiffOptions } from './diff';
export { diffToMarkdown } from './markdown';
export type * from './types';
export { FusionChangeKind, MatchTier, SpillChangeKind } from './types';
