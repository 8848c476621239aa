/** `268435456` → `256 MiB`, `1536` → `1.5 KiB`, `12` → `12 B`: short enough for a badge. */
export function formatShortBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 || Number.isInteger(v) ? v : v.toFixed(1)} ${units[u]}`;
}
