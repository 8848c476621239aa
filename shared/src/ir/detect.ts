import { DocumentKind } from '../model/document';

/**
 * Best guess of what a text is, from its first meaningful lines.
 * Placeholder rules; the dialect parsers refine this.
 */
export function detectKind(text: string): DocumentKind {
  const head = text.slice(0, 4096);
  if (/^\s*[[{]/.test(head) && /"traceEvents"|"ph"\s*:/.test(head)) return DocumentKind.trace;
  if (/\{\s*lambda\b/.test(head)) return DocumentKind.jaxpr;
  if (/\bHloModule\b/.test(head)) return /is_scheduled=true/.test(head) ? DocumentKind.hloOpt : DocumentKind.hlo;
  if (/\b(module|func\.func|stablehlo\.|mhlo\.)/.test(head)) return DocumentKind.stablehlo;
  return DocumentKind.text;
}
