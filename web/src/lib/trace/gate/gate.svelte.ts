import { DEFAULT_GATE_BAR } from '@seam/shared/ir';
import type { GateReport, GateUnavailable } from '@seam/shared/model';
import { failure } from '../../room/api';

/**
 * The Gate card's state for one capture group: the chosen candidate (the top spill when none), the
 * bar, and the server's gate computed from the stored dump, trace and provenance
 * (`GET /api/rooms/:id/captures/:jobId/gate`). Answers that arrive after the choice changed are dropped.
 */
export class GateState {
  captureId = $state<string | null>(null);
  /** The candidate's producer name; null for the top one. */
  value = $state<string | null>(null);
  /** The bar as a percentage, as typed. */
  barPct = $state(DEFAULT_GATE_BAR * 100);
  report = $state<GateReport | null>(null);
  /** Why the group gives no gate: the server's reason (`no-trace`, `op-not-in-trace`, …), or `error` when the request failed. */
  unavailable = $state<{ reason: string; message: string } | null>(null);
  loading = $state(false);
  private asked = 0;

  constructor(
    private readonly roomId: string,
    private readonly token: string,
    private readonly fetcher: typeof fetch = (...a) => fetch(...a),
  ) {}

  /** Shows the gate of `captureId` (null: none), with the top candidate and the default bar. */
  show(captureId: string | null): void {
    if (captureId === this.captureId) return;
    this.captureId = captureId;
    this.value = null;
    this.report = null;
    this.unavailable = null;
    void this.load();
  }

  choose(value: string): void {
    this.value = value;
    void this.load();
  }

  setBar(pct: number): void {
    if (!Number.isFinite(pct) || pct < 0) return;
    this.barPct = pct;
    void this.load();
  }

  /** Measured µs per run of a candidate's ops, when the trace has them all. */
  measuredOf(producer: string): number | null | undefined {
    return this.report?.candidates.find((c) => c.name === producer)?.measuredUs;
  }

  async load(): Promise<void> {
    const id = this.captureId;
    if (id === null) return;
    const n = ++this.asked;
    this.loading = true;
    const q = new URLSearchParams({ bar: String(this.barPct / 100) });
    if (this.value !== null) q.set('value', this.value);
    try {
      const res = await this.fetcher(`/api/rooms/${encodeURIComponent(this.roomId)}/captures/${encodeURIComponent(id)}/gate?${q.toString()}`, {
        headers: { Authorization: `Bearer ${this.token}` },
      });
      if (n !== this.asked) return;
      if (res.ok) {
        this.report = (await res.json()) as GateReport;
        this.unavailable = null;
      } else if (res.status === 409) {
        const body = (await res.json()) as { error: GateUnavailable };
        this.unavailable = { reason: body.error.reason, message: body.error.message };
        this.report = null;
      } else {
        const e = await failure(res);
        this.unavailable = { reason: 'error', message: e.message };
        this.report = null;
      }
    } catch (e) {
      if (n === this.asked) this.unavailable = { reason: 'error', message: e instanceof Error ? e.message : String(e) };
    } finally {
      if (n === this.asked) this.loading = false;
    }
  }
}
