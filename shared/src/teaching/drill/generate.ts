import { DocumentKind } from '../../model/document';
import { analyze } from '../../ir/analyze';
import type { CrossLayerKey, DotInfo, DumpIndex, ValueInfo } from '../../ir/types';
import { seededRandom, shuffled } from './seeded';
import { DRILL_ASKS, DrillAsk, type DrillItem, type DrillQuestion } from './types';

/** Questions a drill holds at most; also the default asked of `generateDrill` is 5. */
export const MAX_DRILL_QUESTIONS = 20;

/** Kinds of dump a drill can be made from: the three IR layers. */
export const DRILLABLE_KINDS: readonly DocumentKind[] = [DocumentKind.jaxpr, DocumentKind.stablehlo, DocumentKind.hlo, DocumentKind.hloOpt];

export interface DrillSource {
  readonly docId: string;
  readonly kind: DocumentKind;
  readonly text: string;
}

export interface DrillOptions {
  /** Same seed, same document: same questions. */
  readonly seed: number;
  /** How many questions (1 to `MAX_DRILL_QUESTIONS`); default 5. Fewer when the dump has fewer. */
  readonly count?: number;
  /** Which asks to draw from; default all. */
  readonly asks?: readonly DrillAsk[];
}

/** Values smaller than this are asked about only when a dump has nothing larger. */
const MIN_BYTES = 64;

/** Ops whose fusion membership is not worth asking: plumbing, not computation. */
const PLUMBING = new Set(['parameter', 'constant', 'fusion', 'tuple', 'get-tuple-element', 'bitcast', 'copy-start', 'copy-done']);

const shape = (dims: readonly number[]): string => (dims.length === 0 ? 'scalar' : dims.join('×'));

/** `dot_general` in jaxpr and StableHLO, `dot` in HLO: the op as the dump prints it. */
const dotWord = (kind: DocumentKind): string => (kind === DocumentKind.hlo || kind === DocumentKind.hloOpt ? 'dot' : 'dot_general');

/**
 * Makes a drill from one dump: picks instructions from its IR index (deterministically from
 * `seed`) and asks about them in turn — einsum, contracting dims, batch dims, fusion (optimized
 * HLO only), bytes — each question with the answer the index states. Dumps of other kinds, or
 * with nothing to ask, give an empty list. Never throws on the text.
 */
export function generateDrill(source: DrillSource, options: DrillOptions): DrillItem[] {
  if (!DRILLABLE_KINDS.includes(source.kind)) return [];
  const count = Math.max(1, Math.min(MAX_DRILL_QUESTIONS, Math.floor(options.count ?? 5)));
  const asks = DRILL_ASKS.filter((a) => !options.asks || options.asks.includes(a));
  const { index } = analyze(source.text, source.kind);
  const random = seededRandom(options.seed);
  const pools = new Map<DrillAsk, DrillItem[]>(asks.map((a) => [a, shuffled(candidates(a, index, source), random)]));
  const out: DrillItem[] = [];
  // Round robin over the asks, so a short drill still mixes them.
  while (out.length < count) {
    let added = false;
    for (const ask of asks) {
      const item = pools.get(ask)?.shift();
      if (!item || out.length >= count) continue;
      out.push({ ...item, question: { ...item.question, id: `q${out.length + 1}` } });
      added = true;
    }
    if (!added) break;
  }
  return withSpanLines(out, source.text);
}

/**
 * Each question's line is the line its span starts on, the one the panel selects: the index's
 * own line can differ (a region argument is listed on its op's line), and the prompt must name
 * the line shown. One pass over the text up to the last span.
 */
function withSpanLines(items: DrillItem[], text: string): DrillItem[] {
  const order = items.map((item, i) => ({ from: item.question.from, i })).sort((a, b) => a.from - b.from);
  const lines = new Array<number>(items.length);
  let line = 1;
  let at = 0;
  for (const { from, i } of order) {
    for (let p = text.indexOf('\n', at); p >= 0 && p < from; p = text.indexOf('\n', p + 1)) {
      line++;
      at = p + 1;
    }
    lines[i] = line;
  }
  return items.map((item, i) => {
    const l = lines[i] ?? item.question.line;
    if (l === item.question.line) return item;
    return { ...item, question: { ...item.question, line: l, prompt: item.question.prompt.replace(`line ${item.question.line}`, `line ${l}`) } };
  });
}

/** A dot whose dimension numbers fit its operands' ranks (a corpus test of invalid ops has `[-1]`). */
function wellFormed(d: DotInfo): boolean {
  const fits = (dims: readonly number[], rank: number) => dims.every((x) => Number.isInteger(x) && x >= 0 && x < rank);
  return fits(d.lhsBatch, d.lhs.length) && fits(d.lhsContracting, d.lhs.length) && fits(d.rhsBatch, d.rhs.length) && fits(d.rhsContracting, d.rhs.length)
    && d.lhsBatch.length === d.rhsBatch.length && d.lhsContracting.length === d.rhsContracting.length && !d.einsum.includes('?');
}

function candidates(ask: DrillAsk, full: DumpIndex, source: DrillSource): DrillItem[] {
  const index = { ...full, dots: full.dots.filter(wellFormed) };
  switch (ask) {
    case DrillAsk.einsum:
    case DrillAsk.contracting:
      return index.dots.map((d) => dotItem(ask, d, source));
    case DrillAsk.batch: {
      // Dots with batch dimensions first: "none" is a fine answer, but not every time.
      const dots = [...index.dots.filter((d) => d.lhsBatch.length > 0), ...index.dots.filter((d) => d.lhsBatch.length === 0)];
      return dots.slice(0, Math.max(1, index.dots.filter((d) => d.lhsBatch.length > 0).length)).map((d) => dotItem(ask, d, source));
    }
    case DrillAsk.fused:
      if (source.kind !== DocumentKind.hloOpt || index.fusions.length === 0) return [];
      return index.keys.filter((k) => !k.applied && !PLUMBING.has(k.op)).map((k) => fusedItem(k, source));
    case DrillAsk.bytes: {
      // Scalars and tiny vectors make dull questions: values of at least 64 bytes, when there are any.
      const sized = index.values.filter((v) => v.bytes >= MIN_BYTES);
      return (sized.length > 0 ? sized : index.values.filter((v) => v.bytes > 0)).map((v) => bytesItem(v, source));
    }
  }
}

function question(source: DrillSource, ask: DrillAsk, subject: string, at: { line: number; from: number; to: number }, prompt: string, placeholder: string): DrillQuestion {
  return { id: '', ask, prompt, placeholder, docId: source.docId, kind: source.kind, subject, line: at.line, from: at.from, to: at.to };
}

function dotItem(ask: 'einsum' | 'contracting' | 'batch', d: DotInfo, source: DrillSource): DrillItem {
  const what = `the ${dotWord(source.kind)} ${d.name} (${shape(d.lhs)} · ${shape(d.rhs)}) on line ${d.line}`;
  if (ask === DrillAsk.einsum) {
    return { question: question(source, ask, d.name, d, `Write the einsum of ${what}.`, 'lhs,rhs->out in letters'), expected: { ask, einsum: d.einsum } };
  }
  if (ask === DrillAsk.contracting) {
    return {
      question: question(source, ask, d.name, d, `Which dimensions contract in ${what}? lhs x rhs.`, '[lhs dims] x [rhs dims]'),
      expected: { ask, lhs: d.lhsContracting, rhs: d.rhsContracting },
    };
  }
  return {
    question: question(source, ask, d.name, d, `Which dimensions are batch dimensions in ${what}? lhs x rhs, or none.`, '[lhs dims] x [rhs dims], or none'),
    expected: { ask, lhs: d.lhsBatch, rhs: d.rhsBatch },
  };
}

function fusedItem(k: CrossLayerKey, source: DrillSource): DrillItem {
  return {
    question: question(source, DrillAsk.fused, k.name, k, `Is ${k.name} (${k.op}, line ${k.line}) fused, and into which fusion?`, "a fusion's name, or no"),
    expected: { ask: DrillAsk.fused, fusion: k.fusion ?? null },
  };
}

function bytesItem(v: ValueInfo, source: DrillSource): DrillItem {
  return {
    question: question(source, DrillAsk.bytes, v.name, v, `How many bytes does ${v.name} (${v.type}, line ${v.line}) move when written once?`, 'bytes, or with a unit: KiB, MB…'),
    expected: { ask: DrillAsk.bytes, bytes: v.bytes },
  };
}
