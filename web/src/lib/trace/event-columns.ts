import type { TraceEvent, TrackColumns, WindowColumns } from '@seam/shared/trace';

/** Event `i` of track columns `t` of window `w`, its strings resolved: what a tooltip or a click on it is given. */
export function eventOf(w: WindowColumns, t: TrackColumns, i: number): TraceEvent {
  const op = t.op[i]!;
  const mod = t.module[i]!;
  return {
    track: t.track, startUs: t.start[i]!, durUs: t.dur[i]!, name: w.strings[t.name[i]!] ?? '',
    ...(op >= 0 ? { op: w.strings[op] ?? '' } : {}),
    ...(mod >= 0 ? { module: w.strings[mod] ?? '' } : {}),
  };
}

/** The ids in `w`'s string table of each string `want` accepts (the ops a highlight or a mark names): a column value is then tested without reading its string. */
export function idsWhere(w: WindowColumns, want: (s: string) => boolean): Set<number> {
  const ids = new Set<number>();
  w.strings.forEach((s, id) => {
    if (want(s)) ids.add(id);
  });
  return ids;
}
