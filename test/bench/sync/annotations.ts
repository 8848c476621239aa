import type * as Y from 'yjs';
import { AnnotationKind, annotationToYMap, annotationsMap, quoteOf, type Annotation } from '@seam/shared/model';

/**
 * A small optimized-HLO dump the benchmark rooms hold, so that annotations anchor into real-looking
 * text with real quotes. One line per instruction, 200 lines.
 */
export function benchDumpText(): string {
  const lines = ['HloModule jit_attention, entry_computation_layout={(f32[8,512,64]{2,1,0})->f32[8,512,64]{2,1,0}}', ''];
  for (let i = 0; i < 200; i += 1) {
    lines.push(`  %fusion.${i} = f32[8,512,512]{2,1,0} fusion(f32[8,512,64]{2,1,0} %p.${i}), kind=kOutput, calls=%fused_computation.${i}`);
  }
  return lines.join('\n');
}

const KINDS = [AnnotationKind.fusion, AnnotationKind.spill, AnnotationKind.note, AnnotationKind.question] as const;

/** The plain annotation number `n` of a load run, anchored on one instruction name of `text`. */
export function benchAnnotation(id: string, n: number, docId: string, text: string, author: Annotation['author']): Annotation {
  const name = `%fusion.${n % 200}`;
  const from = text.indexOf(`${name} =`);
  const to = from + name.length;
  return {
    id,
    docId,
    from,
    to,
    quote: quoteOf(text, from, to),
    kind: KINDS[n % KINDS.length] ?? AnnotationKind.note,
    body: `Annotation ${n}: this fusion writes the 8x512x512 score matrix to HBM; the softmax reads it back.`,
    author,
    createdAt: Date.now(),
    resolved: false,
    replies: [],
    instruction: name,
  };
}

/** Adds annotations to a room document as the room schema lays them out, in one transaction. */
export function addAnnotations(doc: Y.Doc, annotations: readonly Annotation[]): void {
  const map = annotationsMap(doc);
  doc.transact(() => {
    for (const a of annotations) map.set(a.id, annotationToYMap(a));
  });
}
