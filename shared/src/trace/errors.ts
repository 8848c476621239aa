/** Why a trace cannot be read: it is not a trace in a known format, or it is cut short, or a value has the wrong type. */
export class TraceFormatError extends Error {
  override name = 'TraceFormatError';
}

/** Why a trace is refused: it passes one of the `TraceLimits` (events, event size, nesting, tracks, strings). */
export class TraceTooLarge extends Error {
  override name = 'TraceTooLarge';
}
