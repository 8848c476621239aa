/**
 * A Chrome/Perfetto JSON trace as the room shows it: the profiler writes it on one line, often
 * hundreds of kilobytes long; here each trace event gets a line of its own, the other top-level
 * fields stay on the first line, and the JSON is the same value. A text that is not such a trace
 * (not JSON, or no `traceEvents` array) is returned unchanged.
 */
export function readableTrace(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return text;
  const fields = value as Record<string, unknown>;
  const events = fields.traceEvents;
  if (!Array.isArray(events)) return text;
  const head = Object.entries(fields).filter(([k]) => k !== 'traceEvents').map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`);
  const body = events.map((e) => JSON.stringify(e)).join(',\n');
  return `{${[...head, `"traceEvents": [`].join(', ')}\n${body}\n]}\n`;
}
