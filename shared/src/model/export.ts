import { isAnchored, type Annotation } from './annotation';
import type { DocumentMeta } from './document';

/**
 * The room as a report: its documents, then every annotation with the lines it quotes. Built the
 * same way by the server (`GET /api/rooms/:id/export.md`, `…/export.json`) and the browser's Export
 * button, so both give the same text.
 */

/** One annotation in an export: the annotation itself plus where it sits and what it quotes. */
export interface ExportedAnnotation extends Annotation {
  /** Title of the document it marks, or its id when the document is not listed. */
  readonly document: string;
  /** First and last line (1-based) of the marked range, when the text still holds the quote. */
  readonly lineFrom?: number;
  readonly lineTo?: number;
  /** The whole lines the range touches, or the quoted exact text when the anchor is detached. */
  readonly quoted: string;
  readonly detached: boolean;
}

/** The JSON form of the export (`…/export.json`). */
export interface RoomExport {
  readonly format: 'seam-room-export';
  readonly version: 1;
  readonly room: { readonly id: string; readonly title: string };
  readonly exportedAt: number;
  readonly documents: readonly DocumentMeta[];
  readonly annotations: readonly ExportedAnnotation[];
}

/** What `buildExport` reads: the room, its documents and annotations, and a way to get each dump's text. */
export interface ExportInput {
  readonly roomId: string;
  readonly title: string;
  readonly documents: readonly DocumentMeta[];
  readonly annotations: readonly Annotation[];
  /** The text of a document, or `undefined` when it is not available (then quotes come from the anchor). */
  readonly textOf: (docId: string) => string | undefined;
  readonly now: number;
}

/** Longest quoted excerpt kept per annotation, in lines; a longer range is cut with a marker line. */
export const MAX_QUOTED_LINES = 20;

/** 1-based line of offset `pos` in `text`. */
function lineAt(text: string, pos: number): number {
  let line = 1;
  for (let p = text.indexOf('\n'); p >= 0 && p < pos; p = text.indexOf('\n', p + 1)) line++;
  return line;
}

/** The whole lines that `[from, to)` touches, at most `MAX_QUOTED_LINES` of them. */
function wholeLines(text: string, from: number, to: number): string {
  const start = text.lastIndexOf('\n', from - 1) + 1;
  const endAt = text.indexOf('\n', Math.max(from, to - 1));
  const lines = text.slice(start, endAt < 0 ? text.length : endAt).split('\n');
  if (lines.length <= MAX_QUOTED_LINES) return lines.join('\n');
  return [...lines.slice(0, MAX_QUOTED_LINES), `… ${lines.length - MAX_QUOTED_LINES} more lines`].join('\n');
}

/** Documents in list order, then annotations in document order and by position within each. */
export function buildExport(input: ExportInput): RoomExport {
  const titles = new Map(input.documents.map((d) => [d.id, d.title]));
  const order = new Map(input.documents.map((d, i) => [d.id, i]));
  const texts = new Map<string, string | undefined>();
  const textOf = (id: string): string | undefined => {
    if (!texts.has(id)) texts.set(id, input.textOf(id));
    return texts.get(id);
  };
  const sorted = [...input.annotations].sort(
    (a, b) => (order.get(a.docId) ?? order.size) - (order.get(b.docId) ?? order.size) || a.from - b.from || a.createdAt - b.createdAt,
  );
  const annotations = sorted.map((a): ExportedAnnotation => {
    const text = textOf(a.docId);
    const document = titles.get(a.docId) ?? a.docId;
    if (text === undefined || !isAnchored(text, a)) return { ...a, document, quoted: a.quote.exact, detached: text !== undefined };
    return { ...a, document, lineFrom: lineAt(text, a.from), lineTo: lineAt(text, Math.max(a.from, a.to - 1)), quoted: wholeLines(text, a.from, a.to), detached: false };
  });
  return { format: 'seam-room-export', version: 1, room: { id: input.roomId, title: input.title }, exportedAt: input.now, documents: input.documents, annotations };
}

/** `134217728` → `134,217,728 B (128 MiB)`. */
export function formatBytes(n: number): string {
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = -1;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  const exact = `${n.toLocaleString('en-US')} B`;
  return u < 0 ? exact : `${exact} (${Number.isInteger(v) ? v : v.toFixed(1)} ${units[u]})`;
}

/** A fence longer than any backtick run in `text`, so dump text can never close it early. */
function fence(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** One line of user text for a Markdown line: line breaks become spaces. */
function inline(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ').trim();
}

/** Block quote of a multi-line body. */
function quoteBlock(s: string): string {
  return s.split('\n').map((l) => `> ${l}`).join('\n');
}

function annotationMarkdown(a: ExportedAnnotation): string {
  const head = [`**${a.kind}**`];
  if (a.instruction) head.push(`\`${a.instruction.replace(/`/g, '')}\``);
  if (a.bytes !== undefined) head.push(formatBytes(a.bytes));
  if (a.traffic !== undefined) head.push(`${formatBytes(a.traffic)} traffic`);
  head.push(a.resolved ? 'resolved' : 'open');
  if (a.detached) head.push('detached');
  const where = a.lineFrom === undefined ? a.document : `${a.document}, ${a.lineFrom === a.lineTo ? `line ${a.lineFrom}` : `lines ${a.lineFrom}–${a.lineTo}`}`;
  const f = fence(a.quoted);
  const out = [`### ${head.join(' · ')}`, '', `${inline(where)} — ${inline(a.author.name)}, ${new Date(a.createdAt).toISOString()}`, '', f, a.quoted, f];
  if (a.body.trim()) out.push('', quoteBlock(a.body));
  if (a.replies.length > 0) {
    out.push('', 'Thread:', '');
    for (const r of a.replies) out.push(`- **${inline(r.author.name)}**: ${inline(r.body)}`);
  }
  return out.join('\n');
}

/** The export as Markdown: title, documents, then each annotation with its quoted lines, kind, size, thread and status. */
export function exportToMarkdown(e: RoomExport): string {
  const out = [`# ${inline(e.room.title)}`, '', `Exported ${new Date(e.exportedAt).toISOString()}.`, '', '## Documents', ''];
  if (e.documents.length === 0) out.push('No documents.');
  for (const d of e.documents) out.push(`- ${inline(d.title)} (${d.kind}, ${formatBytes(d.bytes)})`);
  out.push('', `## Annotations (${e.annotations.length})`);
  if (e.annotations.length === 0) out.push('', 'No annotations.');
  for (const a of e.annotations) out.push('', annotationMarkdown(a));
  return `${out.join('\n')}\n`;
}
