import * as Y from 'yjs';
import { AnnotationKind, annotationToYMap, annotationsMap } from '@seam/shared/model';
import { addAnnotations, benchAnnotation, benchDumpText } from './annotations';
import { summarize, type Summary } from './report';

/** What Yjs alone takes to apply one room state to a fresh document, with no server or socket. */
export interface ApplyFloor {
  readonly name: string;
  readonly bytes: number;
  readonly times: Summary;
}

/**
 * The client-side floor of a join: `Y.applyUpdate` of a room holding `count` annotations into a
 * fresh `Y.Doc`, `runs` times in this process (after one warm-up), for the benchmark's annotations
 * and for the smallest annotation the room schema allows (every key, one-character strings), so
 * the report shows how much of a join no server can remove.
 */
export function measureApplyFloor(count: number, runs: number): ApplyFloor[] {
  const text = benchDumpText();
  const author = { id: 'bench-writer', name: 'Writer', color: '#ef4444' };
  const bench = new Y.Doc();
  addAnnotations(bench, Array.from({ length: count }, (_, n) => benchAnnotation(`join-${bench.clientID}-${n}`, n, 'doc', text, author)));
  const minimal = new Y.Doc();
  minimal.transact(() => {
    const map = annotationsMap(minimal);
    for (let n = 0; n < count; n += 1) {
      map.set(`a${n}`, annotationToYMap({
        id: `a${n}`, docId: 'd', from: n, to: n + 1, quote: { prefix: '', exact: 'x', suffix: '' }, kind: AnnotationKind.note, body: 'b',
        author: { id: 'u', name: 'A', color: '#f00' }, createdAt: 1, resolved: false, replies: [],
      }));
    }
  });
  return [['benchmark annotations', bench], ['smallest schema-valid annotations', minimal]].map(([name, doc]) => {
    const update = Y.encodeStateAsUpdate(doc as Y.Doc);
    Y.applyUpdate(new Y.Doc(), update);
    const times: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      const fresh = new Y.Doc();
      const t0 = performance.now();
      Y.applyUpdate(fresh, update);
      times.push(performance.now() - t0);
      fresh.destroy();
    }
    return { name: name as string, bytes: update.length, times: summarize(times) };
  });
}
