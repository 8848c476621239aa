/**
 * The reduced form of a profiler trace: what a trace in any format (Chrome/Perfetto JSON, XProf's
 * XSpace) is reduced to once, at ingest, and what the views read in pieces. Times are microseconds.
 */

/** What a track is: a device (its own plane or process), a stream of a device, a host thread, or something else. */
export const TrackKind = { device: 'device', stream: 'stream', host: 'host', other: 'other' } as const;
export type TrackKind = (typeof TrackKind)[keyof typeof TrackKind];

/** The format a trace was read from. */
export const TraceFormat = { chromeJson: 'chrome-json', xplane: 'xplane' } as const;
export type TraceFormat = (typeof TraceFormat)[keyof typeof TraceFormat];

/** One timeline: a thread of a process (JSON), a line of a plane (XSpace). */
export interface TraceTrack {
  /** Index in `TraceSummary.tracks`, and the `track` column's value. */
  readonly id: number;
  readonly kind: TrackKind;
  /** The process or plane name, e.g. `/host:CPU`, `/device:GPU:0`. */
  readonly process: string;
  /** The thread or line name, e.g. `python`, `Stream #20(Compute)`, `XLA Ops`. */
  readonly name: string;
  /** Order among tracks as the trace asks (sort_index, line display id), else first seen. */
  readonly sortIndex: number;
  /** How many events the track holds. */
  readonly events: number;
  /** Earliest start and latest end of its events (0 and 0 when it has none). */
  readonly startUs: number;
  readonly endUs: number;
}

/** Time and count of one HLO op in one module, over every event tagged with it (`hlo_op`, `hlo_module`). */
export interface OpAggregate {
  readonly module: string;
  readonly op: string;
  readonly count: number;
  readonly totalUs: number;
  readonly meanUs: number;
  readonly minUs: number;
  readonly maxUs: number;
}

/** One step where the trace marks steps (an event with a `step_num` argument or stat). */
export interface TraceStep {
  readonly step: number;
  readonly name: string;
  readonly startUs: number;
  readonly durUs: number;
  readonly track: number;
}

/** Everything about a reduced trace but its events: small, read first. */
export interface TraceSummary {
  readonly format: TraceFormat;
  /** Events kept (complete, begin/end pairs, instants). */
  readonly events: number;
  readonly tracks: readonly TraceTrack[];
  /** Earliest start and latest end over all events (0 and 0 for an empty trace). */
  readonly startUs: number;
  readonly endUs: number;
  /** Sum of the durations of the events tagged with an HLO op. */
  readonly opTotalUs: number;
  readonly steps: readonly TraceStep[];
  /** Events read but not kept: counters, flows, async, metadata the reduced form does not hold. */
  readonly ignored: number;
  /** Begin events never ended, and end events that ended nothing; not kept. */
  readonly unpaired: number;
}

/**
 * The events in columns, sorted by track and then start: event `i` is on track `track[i]`, starts
 * at `start[i]`, lasts `dur[i]` (0 for an instant), is named `strings[name[i]]` and tagged with the
 * HLO op `strings[op[i]]` of module `strings[module[i]]` (-1 where it is not). 32 bytes an event.
 */
export interface TraceColumns {
  readonly start: Float64Array;
  readonly dur: Float64Array;
  readonly name: Int32Array;
  readonly op: Int32Array;
  readonly module: Int32Array;
  readonly track: Int32Array;
}

/** A trace reduced: summary, string table, event columns, per-op aggregates (longest total first). */
export interface ReducedTrace {
  readonly summary: TraceSummary;
  readonly strings: readonly string[];
  readonly columns: TraceColumns;
  readonly ops: readonly OpAggregate[];
}

/** One event of a window, its strings resolved. */
export interface TraceEvent {
  readonly track: number;
  readonly startUs: number;
  readonly durUs: number;
  readonly name: string;
  readonly op?: string;
  readonly module?: string;
}

/** What bounds a reduction; past any of them the trace is refused (`TraceTooLarge`). */
export interface TraceLimits {
  /** Events kept, at most. */
  readonly maxEvents: number;
  /** Bytes of one JSON trace event, at most; of one XSpace event, metadata entry or string field, and of a line's fields besides its events. */
  readonly maxEventBytes: number;
  /** Bytes of one XSpace plane, at most (spooled and read back in pieces, not held). */
  readonly maxPlaneBytes: number;
  /** Nesting of arrays and objects in a JSON trace, at most. */
  readonly maxDepth: number;
  /** Tracks, at most. */
  readonly maxTracks: number;
  /** Characters in all distinct strings (names, ops, modules, tracks), at most. */
  readonly maxStringChars: number;
}

export const DEFAULT_TRACE_LIMITS: TraceLimits = Object.freeze({
  maxEvents: 5_000_000,
  maxEventBytes: 1024 * 1024,
  maxPlaneBytes: 512 * 1024 * 1024,
  maxDepth: 64,
  maxTracks: 10_000,
  maxStringChars: 64 * 1024 * 1024,
});
