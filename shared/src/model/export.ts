import { CATALOGUE_LAYER_TITLES, type CatalogueLayer } from '../ir/catalogue/index';
import type { Analysis, MappingRow, SpillCandidate } from '../ir/types';
import { isAnchored, type Annotation } from './annotation';
import { traceAnchorLabel } from './annotation-trace';
import { provenanceFacts } from './capture-facts';
import type { DocumentMeta } from './document';
import { exportCaptures, type ExportedCapture } from './export-capture';
import type { ExportedCatalogue } from './export-catalogue';
import type { ExportedDiff } from './export-diff';
import { exportMappings, mappingGroups, type ExportedMapping } from './export-mapping';
import type { GateReport, GateUnavailable } from './gate-report';
import { formatArgSpec, type CaptureEntry } from './jobs';

/**
 * The room as a report: its documents, every annotation with the lines it quotes, the room's
 * notes, each capture with its provenance, the mapping table of each capture or module group and
 * the gates. Built by the server (`GET /api/rooms/:id/export.md`, `…/export.json`), which the
 * browser's Export button downloads.
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
  /**
   * For a spill annotation written without its figures (marked from a selection): `analysis` when
   * its instruction, size and traffic were filled in from the spill candidate of the dump's
   * analysis that it marks (by instruction name, else by overlapping the candidate's line).
   */
  readonly figuresFrom?: 'analysis';
  /** The kernels that read a spill back, when its candidate is known. */
  readonly readers?: readonly string[];
}

/** The JSON form of the export (`…/export.json`). */
export interface RoomExport {
  readonly format: 'seam-room-export';
  readonly version: 1;
  readonly room: { readonly id: string; readonly title: string };
  readonly exportedAt: number;
  readonly documents: readonly DocumentMeta[];
  readonly annotations: readonly ExportedAnnotation[];
  /** The room's co-edited notes; absent when empty. */
  readonly notes?: string;
  /** The room's captures with their provenance and cost figures; absent when there are none. */
  readonly captures?: readonly ExportedCapture[];
  /** One mapping table per capture or module group holding all three layers; absent when there are none. */
  readonly mappings?: readonly ExportedMapping[];
  /** The gate of each capture group with a trace, as the server computes it from what it stored (default candidate and bar); absent when none was given. */
  readonly gates?: readonly (GateReport | GateUnavailable)[];
  /**
   * The structural diff of each version pair (see `versionPairs`): a capture's or module group's
   * HLO against the same layer of the earlier group of the same program; absent when there are none.
   */
  readonly diffs?: readonly ExportedDiff[];
  /**
   * The lower() vs compile() card and the operator catalogue of each group holding a program layer
   * (see `catalogueGroups`), as JSON and as Markdown; absent when there are none.
   */
  readonly catalogues?: readonly ExportedCatalogue[];
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
  /** Gates of the room's capture groups, when the builder computed them. */
  readonly gates?: readonly (GateReport | GateUnavailable)[];
  /** The room's notes text. */
  readonly notes?: string;
  /** The room's capture entries (the server-written `captures` map). */
  readonly captures?: readonly CaptureEntry[];
  /**
   * A document's stored analysis, or `undefined` when it has none: the mapping tables (the three
   * layers of each group, see `mappingGroups`) and the figures of spill annotations written without
   * them (their documents) read it. Without it the export has no mapping tables.
   */
  readonly analysisOf?: (docId: string) => Analysis | undefined;
  /**
   * The mapping tables, when the caller made them itself (`exportMappings`, say one group at a
   * time so that only three analyses are held at once); then `analysisOf` serves the spills only.
   */
  readonly mappings?: readonly ExportedMapping[];
  /** The diffs of the room's version pairs, made by the caller (`exportDiff`, one pair at a time). */
  readonly diffs?: readonly ExportedDiff[];
  /** The catalogues of the room's groups, made by the caller (`exportCatalogue`, one group at a time). */
  readonly catalogues?: readonly ExportedCatalogue[];
}

/** Rows of one mapping table the Markdown form lists; the JSON form holds them all. */
export const MAX_MAPPING_ROWS = 500;

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

/** The spill candidate a spill annotation marks: by its instruction name, else the first (most traffic) whose span it overlaps. */
function spillMarked(spills: readonly SpillCandidate[], a: Annotation): SpillCandidate | undefined {
  const name = a.instruction?.replace(/^%/, '');
  if (name !== undefined) return spills.find((s) => s.producer === name);
  return spills.find((s) => s.from < Math.max(a.to, a.from + 1) && a.from < s.to);
}

/** A spill annotation with the figures its author did not write, from the analysis of the dump it marks. */
function withSpillFigures(a: ExportedAnnotation, spills: readonly SpillCandidate[] | undefined): ExportedAnnotation {
  if (a.kind !== 'spill' || a.detached || a.trace || !spills) return a;
  const s = spillMarked(spills, a);
  if (!s) return a;
  const missing = a.bytes === undefined || a.traffic === undefined || a.instruction === undefined;
  return {
    ...a, instruction: a.instruction ?? s.producer, bytes: a.bytes ?? s.bytes, traffic: a.traffic ?? s.traffic, readers: s.consumers,
    ...(missing ? { figuresFrom: 'analysis' as const } : {}),
  };
}

/**
 * Documents in list order, then annotations in document order and by position within each, the
 * notes, the captures (in document-list order), one mapping table per group with three analysed
 * layers, and the gates.
 */
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
    // A trace annotation marks an op or a time range, not text: its anchor is what it quotes.
    if (a.trace) return { ...a, document, quoted: '', detached: false };
    if (text === undefined || !isAnchored(text, a)) return { ...a, document, quoted: a.quote.exact, detached: text !== undefined };
    const e: ExportedAnnotation = { ...a, document, lineFrom: lineAt(text, a.from), lineTo: lineAt(text, Math.max(a.from, a.to - 1)), quoted: wholeLines(text, a.from, a.to), detached: false };
    return a.kind === 'spill' ? withSpillFigures(e, input.analysisOf?.(a.docId)?.index.spills) : e;
  });
  const notes = input.notes?.trim() ? input.notes : undefined;
  const captures = input.captures && input.captures.length > 0 ? exportCaptures(input.documents, input.captures) : [];
  const mappings = input.mappings ?? (input.analysisOf ? exportMappings(mappingGroups(input.documents), input.analysisOf) : []);
  return {
    format: 'seam-room-export', version: 1, room: { id: input.roomId, title: input.title }, exportedAt: input.now, documents: input.documents, annotations,
    ...(notes !== undefined ? { notes } : {}),
    ...(captures.length > 0 ? { captures } : {}),
    ...(mappings.length > 0 ? { mappings } : {}),
    ...(input.gates ? { gates: input.gates } : {}),
    ...(input.diffs && input.diffs.length > 0 ? { diffs: input.diffs } : {}),
    ...(input.catalogues && input.catalogues.length > 0 ? { catalogues: input.catalogues } : {}),
  };
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

/** Length of the longest run of backticks in `text` (0 when it has none). */
function longestBackticks(text: string): number {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return longest;
}

/** A fence longer than any backtick run in `text`, so dump text can never close it early. */
function fence(text: string): string {
  return '`'.repeat(Math.max(3, longestBackticks(text) + 1));
}

/**
 * User or dump text as inert Markdown text on one line: line breaks become spaces; `&`, `<` and
 * `>` become entities, so no HTML tag, comment or autolink can start; `[` and `]` are escaped, so
 * no link, image or link definition can form (whatever its scheme); and the characters of code
 * spans, emphasis and strikethrough are escaped too, so the text reads as it was written.
 */
function text(s: string): string {
  return s
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .trim()
    .replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'))
    .replace(/[\\`*_[\]~]/g, '\\$&');
}

/** `text(s)` for the start of a line: a leading `#`, `-`, `+`, `=`, `|` or `1.` is escaped too, so it opens no heading, list, rule or table. */
function lineText(s: string): string {
  return text(s).replace(/^[#+=|-]/, '\\$&').replace(/^(\d+)([.)])/, '$1\\$2');
}

/** One line of dump text as a code span: delimited by more backticks than it holds, so it cannot end early. */
function codeSpan(s: string): string {
  const flat = s.replace(/[\r\n]+/g, ' ');
  const tick = '`'.repeat(longestBackticks(flat) + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${tick}${pad}${flat}${pad}${tick}`;
}

/** Block quote of a multi-line body, each line inert text. */
function quoteBlock(s: string): string {
  return s.split(/\r\n|\r|\n/).map((l) => `> ${lineText(l)}`).join('\n');
}

/** An ISO time, or `unknown time` for a value no date can hold. */
function isoTime(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? 'unknown time' : d.toISOString();
}

function annotationMarkdown(a: ExportedAnnotation): string {
  const head = [`**${text(a.kind)}**`];
  if (a.instruction) head.push(codeSpan(a.instruction));
  if (a.bytes !== undefined) head.push(formatBytes(a.bytes));
  if (a.traffic !== undefined) head.push(`${formatBytes(a.traffic)} traffic`);
  if (a.figuresFrom === 'analysis') head.push('figures from the analysis');
  head.push(a.resolved ? 'resolved' : 'open');
  if (a.detached) head.push('detached');
  const where = a.trace
    ? `${lineText(a.document)}, ${a.trace.type === 'op' ? `op ${codeSpan(a.trace.op)}${a.trace.module ? ` in ${codeSpan(a.trace.module)}` : ''}` : text(traceAnchorLabel(a.trace))}`
    : a.lineFrom === undefined ? lineText(a.document) : `${lineText(a.document)}, ${a.lineFrom === a.lineTo ? `line ${a.lineFrom}` : `lines ${a.lineFrom}–${a.lineTo}`}`;
  const quoted = a.quoted.replace(/\r\n?/g, '\n');
  const f = fence(quoted);
  const out = [`### ${head.join(' · ')}`, '', `${where} — ${text(a.author.name)}, ${isoTime(a.createdAt)}`];
  if (!a.trace) out.push('', f, quoted, f);
  if (a.body.trim()) out.push('', quoteBlock(a.body));
  if (a.readers && a.readers.length > 0) out.push('', `Read back by ${a.readers.map(codeSpan).join(', ')}.`);
  if (a.replies.length > 0) {
    out.push('', 'Thread:', '');
    for (const r of a.replies) out.push(`- **${text(r.author.name)}**: ${text(r.body)}`);
  }
  return out.join('\n');
}

/** One capture group's gate: the verdict, then each figure with where it came from, as inert text. */
function gateMarkdown(g: GateReport | GateUnavailable): string {
  if (!('gate' in g)) return [`### Capture ${codeSpan(g.captureId)}: no gate`, '', `${text(g.reason)}: ${text(g.message)}`].join('\n');
  const r = g.gate;
  const off = Math.abs(r.ratios.measuredToEstimate - 1) * 100;
  const out = [
    `### Capture ${codeSpan(g.captureId)}: ${codeSpan(r.candidate.name)} · ${r.pass ? 'PASS' : 'FAIL'} · measured / estimate ${r.ratios.measuredToEstimate.toFixed(3)} (${off.toFixed(1)}% off, bar ${+(r.bar * 100).toFixed(2)}%)`,
    '',
    `From ${lineText(g.sources.hloOpt.title)}, ${text(g.sources.trace.title)}${g.sources.cost ? ` and ${text(g.sources.cost.title)}` : ''}; ${g.sources.runs} traced runs; copy bandwidth ${text(g.sources.bandwidth.method)}.`,
  ];
  if (g.platform === 'cpu') out.push('', 'CPU: figures are what this CPU gives.');
  out.push('');
  for (const line of r.explanation) out.push(`- ${text(line)}`);
  return out.join('\n');
}

/** The room's notes, each line quoted as inert text. */
function notesMarkdown(notes: string): string {
  return quoteBlock(notes.replace(/\s+$/, ''));
}

/** `563,360` */
const exact = (n: number): string => n.toLocaleString('en-US');

/** One capture: what ran and how it ended, then its provenance and cost figures, one fact a line, as inert text. */
function captureMarkdown(c: ExportedCapture): string {
  const call = `${c.entry}(${c.args.map(formatArgSpec).join(', ')})`;
  const out = [`### ${text(c.label)} · ${codeSpan(call)} · ${text(c.status)}`, '', `Requested by ${text(c.requestedBy)}, ${isoTime(c.createdAt)}.`, ''];
  for (const f of c.provenance ? provenanceFacts(c.provenance) : []) out.push(`- ${text(f.label)}: ${text(f.value)}`);
  const g = c.figures;
  const cost = [g.flops !== undefined && `${exact(g.flops)} FLOPs`, g.transcendentals !== undefined && `${exact(g.transcendentals)} transcendentals`, g.bytesAccessed !== undefined && `${formatBytes(g.bytesAccessed)} accessed`].filter(Boolean);
  if (cost.length > 0) out.push(`- cost analysis: ${cost.join(' · ')}`);
  const memory = [g.argumentBytes !== undefined && `arguments ${formatBytes(g.argumentBytes)}`, g.outputBytes !== undefined && `output ${formatBytes(g.outputBytes)}`, g.tempBytes !== undefined && `temporaries ${formatBytes(g.tempBytes)}`].filter(Boolean);
  if (memory.length > 0) out.push(`- memory analysis: ${memory.join(' · ')}`);
  if (c.documents.length > 0) out.push(`- documents: ${c.documents.map(text).join('; ')}`);
  if (c.error) out.push(`- error: ${text(c.error.reason)}: ${text(c.error.message)}`);
  if (out[out.length - 1] === '') out.pop();
  return out.join('\n');
}

/** A table cell: inert text in which `|` cannot end the cell. */
function cell(s: string): string {
  return text(s).replace(/\|/g, '\\|');
}

/** One row of a mapping table: the equation's line, name, primitive, source, and the ops it became. */
function mappingRow(r: MappingRow): string {
  const src = [r.source.opName, r.source.file !== undefined ? `${r.source.file}:${r.source.line ?? ''}${r.source.column !== undefined ? `:${r.source.column}` : ''}` : undefined].filter(Boolean).join(' @ ');
  const shlo = r.stablehlo.map((o) => `${o.name} ${o.op}`).join(', ');
  const hlo = r.hlo.map((o) => `${o.name} (${o.op}${o.fusion ? ` in ${o.fusion}` : ''})`).join(', ');
  return `| ${r.line} | ${cell(r.equation)} | ${cell(r.primitive)} | ${cell(src)} | ${cell(shlo)} | ${cell(hlo)} |`;
}

/** One group's mapping table: which group and documents it pairs, then at most `MAX_MAPPING_ROWS` rows. */
function mappingMarkdown(m: ExportedMapping): string {
  const d = m.documents;
  const out = [`### ${text(m.label)}`, '', `jaxpr ${text(d.jaxpr.title)} · StableHLO ${text(d.stablehlo.title)} · HLO ${text(d.hlo.title)}, all of ${text(m.label)}.`];
  if (m.stablehloWithoutLocs) out.push('', 'The StableHLO was printed without debug info (`as_text(debug_info=True)` keeps it), so no StableHLO op is joined.');
  out.push('', '| line | equation | primitive | source | StableHLO | HLO |', '|---:|---|---|---|---|---|');
  for (const r of m.rows.slice(0, MAX_MAPPING_ROWS)) out.push(mappingRow(r));
  if (m.rows.length > MAX_MAPPING_ROWS) out.push('', `… ${m.rows.length - MAX_MAPPING_ROWS} more rows; the JSON export holds them all.`);
  return out.join('\n');
}

/** Dump text as an inert Markdown table cell, for Markdown made elsewhere (the diffs') to go into the export. */
export { cell as inertCell };

/** One diff: the two documents, then the diff's own Markdown one heading level down, or why it was not made. */
function diffMarkdown(x: ExportedDiff): string {
  const head = `### ${text(x.a.group)} → ${text(x.b.group)}`;
  const docs = `A: ${text(x.a.title)} (${text(x.a.group)}) · B: ${text(x.b.title)} (${text(x.b.group)}).`;
  if (x.markdown === undefined) return [head, '', docs, '', `Not diffed: ${text(x.skipped ?? 'no diff')}.`].join('\n');
  return [head, '', docs, '', x.markdown.replace(/^#/gm, '###').trimEnd()].join('\n');
}

/** One group's card and catalogue: its own Markdown one heading level down, the documents read named under its title. */
function catalogueSection(x: ExportedCatalogue): string {
  const [head = '', ...rest] = x.markdown.replace(/^#/gm, '###').trimEnd().split('\n');
  const docs = (Object.entries(x.documents) as [CatalogueLayer, { title: string }][]).map(([l, d]) => `${CATALOGUE_LAYER_TITLES[l]} ${text(d.title)}`).join(' · ');
  const out = [head, '', `From ${docs || 'no document'}.`];
  if (x.withoutText) out.push('', `Catalogued from the stored analysis alone, without the text (casts name only the dtype cast to, shardings carried as attributes are not listed): ${x.withoutText.map(text).join('; ')}.`);
  if (x.unanalysed) out.push('', `Not catalogued, no analysis stored: ${x.unanalysed.map(text).join('; ')}.`);
  return [...out, ...rest].join('\n');
}

/**
 * The export as Markdown: title, documents, each annotation with its quoted lines, kind, size,
 * thread and status, the notes, the captures with their provenance, the mapping tables, the gates,
 * the diffs of the room's version pairs, and each group's card and operator catalogue.
 */
export function exportToMarkdown(e: RoomExport): string {
  const out = [`# ${text(e.room.title)}`, '', `Exported ${isoTime(e.exportedAt)}.`, '', '## Documents', ''];
  if (e.documents.length === 0) out.push('No documents.');
  for (const d of e.documents) out.push(`- ${text(d.title)} (${text(d.kind)}, ${formatBytes(d.bytes)})`);
  out.push('', `## Annotations (${e.annotations.length})`);
  if (e.annotations.length === 0) out.push('', 'No annotations.');
  for (const a of e.annotations) out.push('', annotationMarkdown(a));
  if (e.notes !== undefined) out.push('', '## Notes', '', notesMarkdown(e.notes));
  if (e.captures && e.captures.length > 0) {
    out.push('', `## Captures (${e.captures.length})`);
    for (const c of e.captures) out.push('', captureMarkdown(c));
  }
  if (e.mappings && e.mappings.length > 0) {
    out.push('', `## Mapping tables (${e.mappings.length})`);
    for (const m of e.mappings) out.push('', mappingMarkdown(m));
  }
  if (e.gates && e.gates.length > 0) {
    out.push('', `## Gates (${e.gates.length})`);
    for (const g of e.gates) out.push('', gateMarkdown(g));
  }
  if (e.diffs && e.diffs.length > 0) {
    out.push('', `## Diffs (${e.diffs.length})`);
    for (const x of e.diffs) out.push('', diffMarkdown(x));
  }
  if (e.catalogues && e.catalogues.length > 0) {
    out.push('', `## Catalogues (${e.catalogues.length})`);
    for (const x of e.catalogues) out.push('', catalogueSection(x));
  }
  return `${out.join('\n')}\n`;
}

/**
 * The export as JSON text in which `<`, `>` and `&` never appear raw (each is a `\u` escape, as
 * are U+2028 and U+2029), so nothing that sniffs or embeds the file can find markup in it. It
 * parses to the same value as `JSON.stringify` gives.
 */
export function exportToJson(e: RoomExport): string {
  return JSON.stringify(e, null, 2).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
