import type { Analysis } from '../../ir/types';
import type { Annotation } from '../../model/annotation';
import type { DocumentMeta } from '../../model/document';
import type { GateReport, GateUnavailable } from '../../model/gate-report';
import type { CaptureEntry } from '../../model/jobs';

/**
 * What a lab's checks read: the room's own data and nothing else. The server gathers it (the
 * `captures` map, the stored documents and their analyses, the `annotations` map, the gates of
 * the captures that recorded a trace); the checks are pure functions of it.
 */
export interface LabRoomData {
  readonly captures: readonly CaptureEntry[];
  readonly documents: readonly DocumentMeta[];
  /** A document's stored analysis; `undefined` while it has none (or it was not loaded). */
  readonly analysisOf: (docId: string) => Analysis | undefined;
  readonly annotations: readonly Annotation[];
  /** The gate of each capture that could give one, or why it could not, by capture id. */
  readonly gates: ReadonlyMap<string, GateReport | GateUnavailable>;
}
