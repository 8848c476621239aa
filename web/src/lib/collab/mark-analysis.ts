import type * as Y from 'yjs';
import type { FusionInfo, SpillCandidate } from '@seam/shared/ir';
import { formatBytes, quoteOf, type Author } from '@seam/shared/model';
import { addAnnotation } from './annotation-store';

/** The body a spill annotation made from the analysis starts with: size, traffic, readers. */
export function spillBody(s: SpillCandidate): string {
  return `${formatBytes(s.bytes)} · ${formatBytes(s.traffic)} traffic: written once by ${s.producer}, read back by ${s.consumers.join(', ')}`;
}

/** The body a fusion annotation made from the analysis starts with: kind, fused ops, bytes in and out. */
export function fusionBody(f: FusionInfo): string {
  return `${f.kind} fusion of ${f.fusedOps} ops (calls ${f.calls}) · in ${formatBytes(f.inputBytes)} · out ${formatBytes(f.outputBytes)}`;
}

/** A range that lies inside `text`, or null: a stale analysis must not anchor past the end. */
function inside(text: string, from: number, to: number): { from: number; to: number } | null {
  return from >= 0 && from < to && to <= text.length ? { from, to } : null;
}

/** "Mark as spill": a spill annotation on the producing instruction, pre-filled with its size and traffic. */
export function markSpill(doc: Y.Doc, docId: string, text: string, s: SpillCandidate, author: Author): string | null {
  const r = inside(text, s.from, s.to);
  if (!r) return null;
  return addAnnotation(doc, { docId, ...r, quote: quoteOf(text, r.from, r.to), kind: 'spill', body: spillBody(s), author, instruction: s.producer, bytes: s.bytes, traffic: s.traffic });
}

/** "Mark as fusion": a fusion annotation on the fusion instruction, pre-filled with its kind and bytes. */
export function markFusion(doc: Y.Doc, docId: string, text: string, f: FusionInfo, author: Author): string | null {
  const r = inside(text, f.from, f.to);
  if (!r) return null;
  return addAnnotation(doc, { docId, ...r, quote: quoteOf(text, r.from, r.to), kind: 'fusion', body: fusionBody(f), author, instruction: f.name, bytes: f.outputBytes });
}
