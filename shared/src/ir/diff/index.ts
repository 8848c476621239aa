export { diffModulesAside, type GraphReader } from './aside';
export { diffModules, type DiffOptions } from './diff';
export type { DiffGraphData } from './graph-data';
export { answerGraphRequest, graphOfReply, type GraphReply, type GraphRequest } from './graph-thread';
export { diffToMarkdown } from './markdown';
export type * from './types';
export { FusionChangeKind, MatchTier, SpillChangeKind } from './types';
