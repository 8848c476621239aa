import type { DocumentMeta } from '../../model/document';
import type { CaptureEntry, CaptureKind } from '../../model/jobs';
import type { LabCapture } from './lab-format';
import type { LabRoomData } from './room-data';

/** Whether a room capture ran the lab capture: same entry function, same argument shapes and dtypes. */
export function runsLabCapture(entry: CaptureEntry, spec: LabCapture): boolean {
  return entry.entry === spec.entry
    && entry.args.length === spec.args.length
    && entry.args.every((a, i) => {
      const b = spec.args[i];
      return b !== undefined && a.dtype === b.dtype && a.shape.length === b.shape.length && a.shape.every((d, j) => d === b.shape[j]);
    });
}

/** The room's finished captures of `spec` that produced every kind in `needs`, newest first. */
export function doneCapturesOf(data: LabRoomData, spec: LabCapture, needs: readonly CaptureKind[] = []): CaptureEntry[] {
  return data.captures
    .filter((c) => c.status === 'done' && runsLabCapture(c, spec) && needs.every((k) => c.capture.includes(k)))
    .sort((a, b) => b.updatedAt - a.updatedAt);
}

/** The documents of a capture group that the room still holds. */
export function documentsOf(data: LabRoomData, capture: CaptureEntry): DocumentMeta[] {
  return data.documents.filter((d) => d.captureId === capture.id);
}
