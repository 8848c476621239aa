import type { Diagnostic, ParseResult } from '../types';
import { safeInt, textLines, type TextLine } from './text-lines';
import type { MemoryReport, MemoryReportRow, MemorySpaceReport } from './types';

/** `Memory Space: default (color=0)` */
const SPACE = /^Memory Space: (.*) \(color=(\d+)\)$/;
/** `Total bytes: 415252540 (396.02MiB)`, or the older report's `Total bytes used: …`. */
const TOTAL = /^Total bytes(?: used)?: (\d+)/;
/** `  cumulative_size;       size;       offset; used_by_n_values; shapes_list` */
const HEADER = /^\s*cumulative_size;\s+size;\s+offset;/;
/** `  256.00MiB( 65%);  256.00MiB;            0;                4; bf16[8192,256], 3×f32[8192,8192]` */
const ROW = /^\s*([\d.]+[KMGTPE]?i?B)\(\s*\d+%\);\s+([\d.]+[KMGTPE]?i?B);\s+(\d+);\s+(\d+); (.*)$/;
const UNITS: Readonly<Record<string, number>> = { B: 1, KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30, TiB: 2 ** 40, PiB: 2 ** 50, EiB: 2 ** 60 };

/**
 * Reads XLA's `*-memory-usage-report.txt`: per memory space its total and, per allocation
 * (largest first), the table of offsets with their size, how many values share each and their
 * shapes. Never throws: a row that breaks the table's grammar, and a text with no memory space
 * and no total, are diagnostics.
 */
export function parseMemoryReport(text: string): ParseResult<MemoryReport> {
  const diagnostics: Diagnostic[] = [];
  const spaces: { name: string; color: number; totalBytes: number; tables: MemoryReportRow[][] }[] = [];
  let table: MemoryReportRow[] | undefined;
  let printedTotal: number | undefined;
  const bad = (l: TextLine, message: string): void => {
    diagnostics.push({ severity: l.ended ? 'warning' : 'error', message: l.ended ? message : `the text ends inside a line: ${message}`, from: l.from, to: l.to });
  };
  for (const l of textLines(text)) {
    const t = l.text;
    if (t.trim() === '') {
      table = undefined;
      continue;
    }
    const space = SPACE.exec(t);
    if (space) {
      spaces.push({ name: space[1] ?? '', color: safeInt(space[2]) ?? 0, totalBytes: 0, tables: [] });
      table = undefined;
      continue;
    }
    const total = TOTAL.exec(t);
    if (total) {
      const n = safeInt(total[1]);
      if (n === undefined) bad(l, 'the total is too large to be exact');
      const s = spaces[spaces.length - 1];
      if (s) s.totalBytes = n ?? 0;
      else printedTotal = n;
      continue;
    }
    if (HEADER.test(t)) {
      table = [];
      spaces[spaces.length - 1]?.tables.push(table);
      continue;
    }
    if (/^\s*-{8,}$/.test(t)) continue;
    if (table) {
      const row = readRow(t);
      if (row) table.push(row);
      else bad(l, 'expected `cumulative(pct%); size; offset; values; shapes` in a memory-usage table');
    }
  }
  const out: MemorySpaceReport[] = spaces;
  if (out.length === 0 && printedTotal === undefined) {
    diagnostics.push({ severity: 'error', message: 'not an XLA memory-usage report: no `Memory Space:` and no `Total bytes` line', from: 0, to: 0 });
  }
  const totalBytes = out.length > 0 ? out.reduce((s, x) => s + x.totalBytes, 0) : (printedTotal ?? 0);
  return { ast: { spaces: out, totalBytes }, diagnostics };
}

function readRow(line: string): MemoryReportRow | undefined {
  const m = ROW.exec(line);
  const offset = safeInt(m?.[3]);
  const values = safeInt(m?.[4]);
  const bytes = humanBytes(m?.[2]);
  if (!m || offset === undefined || values === undefined || bytes === undefined) return undefined;
  const shapes = (m[5] ?? '').split(/, (?![^[]*\])/).filter((s) => s !== '').map((s) => {
    const c = /^(\d+)×(.*)$/.exec(s);
    return c ? { shape: c[2] ?? '', count: safeInt(c[1]) ?? 1 } : { shape: s, count: 1 };
  });
  return { sizeText: m[2] ?? '', bytes, offset, values, shapes };
}

/** `16.0KiB` → 16384, `256B` → 256: XLA's `HumanReadableNumBytes`, read back (rounded as printed). */
export function humanBytes(s: string | undefined): number | undefined {
  const m = s === undefined ? null : /^([\d.]+)([KMGTPE]?i?B)$/.exec(s);
  const unit = m ? UNITS[m[2] ?? ''] : undefined;
  const n = m ? Number(m[1]) : NaN;
  return unit === undefined || !Number.isFinite(n) ? undefined : Math.round(n * unit);
}
