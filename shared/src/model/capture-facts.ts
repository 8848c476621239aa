import type { CaptureProvenance } from './jobs';

/**
 * What a capture's analyses say about the program, as the harness reports them in the capture's
 * `analyses`: `cost` is `compiled.cost_analysis()` (`flops`, `bytes accessed`, `transcendentals`)
 * and `memory` is `compiled.memory_analysis()` (`argument_size_in_bytes`, …). Each field is present
 * only when the runner sent a finite, non-negative number for it.
 */
export interface CaptureFigures {
  readonly flops?: number;
  readonly bytesAccessed?: number;
  readonly transcendentals?: number;
  readonly argumentBytes?: number;
  readonly outputBytes?: number;
  readonly tempBytes?: number;
}

/** A number a runner sent, when it is one a count can be: finite and not negative. */
function count(table: unknown, key: string): number | undefined {
  if (!table || typeof table !== 'object' || Array.isArray(table)) return undefined;
  const v = (table as Record<string, unknown>)[key];
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/** The figures of a capture's `analyses` (see {@link CaptureFigures}); `{}` when it has none. */
export function captureFigures(analyses: Readonly<Record<string, unknown>> | undefined): CaptureFigures {
  const cost = analyses?.['cost'];
  const memory = analyses?.['memory'];
  const fields: [keyof CaptureFigures, number | undefined][] = [
    ['flops', count(cost, 'flops')],
    ['bytesAccessed', count(cost, 'bytes accessed')],
    ['transcendentals', count(cost, 'transcendentals')],
    ['argumentBytes', count(memory, 'argument_size_in_bytes')],
    ['outputBytes', count(memory, 'output_size_in_bytes')],
    ['tempBytes', count(memory, 'temp_size_in_bytes')],
  ];
  return Object.fromEntries(fields.filter(([, v]) => v !== undefined)) as CaptureFigures;
}

/** One line of a capture's provenance: what it is and its value, as plain text. */
export interface CaptureFact {
  readonly label: string;
  readonly value: string;
}

/** `33180000000` → `33.18 GB/s`. */
export function formatRate(bytesPerSecond: number): string {
  return `${(bytesPerSecond / 1e9).toFixed(2)} GB/s`;
}

/** `cpu`, `tpu · TPU v5 lite ×4`: the platform, the device kind when it says more, the count when above one. */
export function deviceLabel(p: Pick<CaptureProvenance, 'platform' | 'deviceKind' | 'deviceCount'>): string | null {
  if (!p.platform && !p.deviceKind) return null;
  // A CPU reports platform "cpu" and device kind "cpu"; a TPU reports "tpu" and "TPU v5 lite".
  const kind = p.deviceKind && p.deviceKind.toLowerCase() !== p.platform?.toLowerCase() ? p.deviceKind : null;
  const n = p.deviceCount !== undefined && p.deviceCount > 1 ? ` ×${p.deviceCount}` : '';
  return `${[p.platform, kind].filter(Boolean).join(' · ')}${n}`;
}

/**
 * Where and with what a capture ran, as the room card and the export show it: runner, device,
 * versions (JAX, jaxlib, Python), XLA flags (`none` when empty) and, when the capture measured it,
 * the copy bandwidth with its nameplate fraction. Facts the provenance lacks are left out.
 */
export function provenanceFacts(p: CaptureProvenance): CaptureFact[] {
  const out: CaptureFact[] = [{ label: 'runner', value: p.runner }];
  const device = deviceLabel(p);
  if (device) out.push({ label: 'device', value: device });
  const versions = [p.jax && `JAX ${p.jax}`, p.jaxlib && `jaxlib ${p.jaxlib}`, p.python && `Python ${p.python}`].filter(Boolean);
  if (versions.length > 0) out.push({ label: 'versions', value: versions.join(' · ') });
  if (p.xlaFlags !== undefined) out.push({ label: 'XLA flags', value: p.xlaFlags.trim() || 'none' });
  const bw = p.bandwidth;
  if (bw) {
    const plate = bw.nameplateBytesPerSecond !== null && bw.fractionOfNameplate !== null
      ? `, ${(bw.fractionOfNameplate * 100).toFixed(0)}% of the ${formatRate(bw.nameplateBytesPerSecond)} nameplate`
      : '';
    out.push({ label: 'bandwidth', value: `${formatRate(bw.bytesPerSecond)} measured copy (best ${formatRate(bw.bestBytesPerSecond)}${plate})` });
  }
  return out;
}
