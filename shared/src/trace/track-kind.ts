import { TrackKind } from './types';

/**
 * What a track is, from its process (or plane) and thread (or line) names as XLA's profiler writes
 * them: a `/device:…` process holds a device's streams (`Stream #…`) and its other lines (`XLA
 * Ops`, `XLA Modules`, `Steps`); a `/host:…` process, or any other, holds host threads.
 */
export function trackKind(process: string, name: string): TrackKind {
  if (process.startsWith('/device:')) return /stream/i.test(name) ? TrackKind.stream : TrackKind.device;
  return TrackKind.host;
}
