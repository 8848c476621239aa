/** `134217728` → `134,217,728 B (128.0 MiB)`: exact bytes first, a readable size after. */
export function formatBytes(n: number): string {
  const exact = `${n.toLocaleString('en-US')} B`;
  if (n < 1024) return exact;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = -1;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${exact} (${v.toFixed(1)} ${units[u]})`;
}

/** Left-aligned columns separated by two spaces; the last column is not padded. */
export function columns(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd());
}
