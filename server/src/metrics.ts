import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The server's Prometheus metrics, in a registry of its own (one per app instance). */
export class Metrics {
  readonly registry = new Registry();
  readonly connections = new Gauge({ name: 'seam_connections', help: 'Open sync sockets.', registers: [this.registry] });
  readonly loadedRooms = new Gauge({ name: 'seam_loaded_rooms', help: 'Room documents held in memory.', registers: [this.registry] });
  readonly updatesIn = new Counter({ name: 'seam_updates_in_total', help: 'Document updates received (sync step 2 and update messages).', registers: [this.registry] });
  readonly updatesOut = new Counter({ name: 'seam_updates_out_total', help: 'Document update messages sent to sockets.', registers: [this.registry] });
  readonly bytesIn = new Counter({ name: 'seam_bytes_in_total', help: 'Bytes received on sync sockets.', registers: [this.registry] });
  readonly bytesOut = new Counter({ name: 'seam_bytes_out_total', help: 'Bytes sent on sync sockets.', registers: [this.registry] });
  readonly refused = new Counter({
    name: 'seam_updates_refused_total',
    help: 'Updates dropped because the connection may not write them, by reason.',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  readonly presenceDropped = new Counter({
    name: 'seam_awareness_entries_dropped_total',
    help: 'Awareness entries dropped because another socket owns their client ID.',
    registers: [this.registry],
  });
  readonly closed = new Counter({ name: 'seam_sockets_closed_total', help: 'Sockets the server closed, by close code.', labelNames: ['code'] as const, registers: [this.registry] });
  readonly persistSeconds = new Histogram({
    name: 'seam_persist_seconds',
    help: 'Time to commit one group of updates to disk.',
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });
  readonly batchSize = new Histogram({ name: 'seam_persist_batch_updates', help: 'Updates per group commit.', buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256], registers: [this.registry] });
  readonly fanout = new Histogram({ name: 'seam_broadcast_fanout', help: 'Sockets one update is broadcast to.', buckets: [0, 1, 2, 5, 10, 25, 50, 100, 250, 500], registers: [this.registry] });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'seam_' });
  }
}
