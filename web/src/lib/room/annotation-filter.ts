import type { Annotation, AnnotationKind } from '@seam/shared/model';

/** The annotation panel's filters; `null` means "any". */
export interface AnnotationFilter {
  readonly docId: string | null;
  readonly kind: AnnotationKind | null;
  readonly status: 'open' | 'resolved' | null;
  readonly authorId: string | null;
}

/** No filter at all. */
export const ANY: AnnotationFilter = { docId: null, kind: null, status: null, authorId: null };

/** The annotations that pass every set filter, in their given order. */
export function filterAnnotations(list: readonly Annotation[], f: AnnotationFilter): Annotation[] {
  return list.filter(
    (a) =>
      (f.docId === null || a.docId === f.docId) &&
      (f.kind === null || a.kind === f.kind) &&
      (f.status === null || (f.status === 'resolved') === a.resolved) &&
      (f.authorId === null || a.author.id === f.authorId),
  );
}

/** The distinct authors of annotations, for the author filter, by name. */
export function authorsOf(list: readonly Annotation[]): { id: string; name: string }[] {
  const seen = new Map<string, string>();
  for (const a of list) if (!seen.has(a.author.id)) seen.set(a.author.id, a.author.name);
  return [...seen].map(([id, name]) => ({ id, name })).sort((a, b) => a.name.localeCompare(b.name));
}

/** Shortens a quote for a card, keeping it on one line, e.g. "%dot.1 = bf16[8192,8192]…". */
export function shortQuote(exact: string, max = 80): string {
  const one = exact.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
