import * as Y from 'yjs';
import { AnnotationKind, annotationToVersion1YMap, annotationToYMap, annotationsMap, type Annotation } from '@seam/shared/model';
import { benchAnnotation, benchDumpText } from './annotations';
import { summarize, type Summary } from './report';

/** What Yjs alone takes to apply one room state to a fresh document, with no server or socket. */
export interface ApplyFloor {
  readonly name: string;
  readonly bytes: number;
  readonly times: Summary;
}

/** A room document holding `annotations`, written in the form `toYMap` makes, in one transaction. */
function room(annotations: readonly Annotation[], toYMap: (a: Annotation) => Y.Map<unknown>): Y.Doc {
  const doc = new Y.Doc();
  doc.transact(() => {
    for (const a of annotations) annotationsMap(doc).set(a.id, toYMap(a));
  });
  return doc;
}

/**
 * The client-side floor of a join: `Y.applyUpdate` of a room holding `count` annotations into a
 * fresh `Y.Doc`, `runs` times in this process (after one warm-up), for the benchmark's annotations
 * and for the smallest annotation the room schema allows (one-character strings), each in the
 * room document's version 2 (what Seam writes) and version 1 (every field its own key, as before),
 * so the report shows how much of a join no server can remove, and what the schema change removed.
 */
export function measureApplyFloor(count: number, runs: number): ApplyFloor[] {
  const text = benchDumpText();
  const author = { id: 'bench-writer', name: 'Writer', color: '#ef4444' };
  const bench = Array.from({ length: count }, (_, n) => benchAnnotation(`join-1234567890-${n}`, n, 'doc', text, author));
  const minimal = Array.from({ length: count }, (_, n): Annotation => ({
    id: `a${n}`, docId: 'd', from: n, to: n + 1, quote: { prefix: '', exact: 'x', suffix: '' }, kind: AnnotationKind.note, body: 'b',
    author: { id: 'u', name: 'A', color: '#f00' }, createdAt: 1, resolved: false, replies: [],
  }));
  const rooms: [string, Y.Doc][] = [
    ['benchmark annotations, version 2', room(bench, annotationToYMap)],
    ['benchmark annotations, version 1', room(bench, annotationToVersion1YMap)],
    ['smallest schema-valid annotations, version 2', room(minimal, annotationToYMap)],
    ['smallest schema-valid annotations, version 1', room(minimal, annotationToVersion1YMap)],
  ];
  return rooms.map(([name, doc]) => {
    const update = Y.encodeStateAsUpdate(doc);
    Y.applyUpdate(new Y.Doc(), update);
    const times: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      const fresh = new Y.Doc();
      const t0 = performance.now();
      Y.applyUpdate(fresh, update);
      times.push(performance.now() - t0);
      fresh.destroy();
    }
    return { name, bytes: update.length, times: summarize(times) };
  });
}
