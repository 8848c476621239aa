import { DocumentKind } from '../model/document';

/** `name = type opcode(`: an HLO instruction line, e.g. `ROOT %add.3 = f32[8]{0} add(` or `t = (f32[], s32[]) tuple(`. */
const HLO_INSTRUCTION = /^\s*(?:ROOT\s+)?%?[\w.\-]+\s*=\s*(?:\(\s*\)|\(\s*[a-z]\w*\[|[a-z][a-z0-9]*\[)/;
/** An HLO computation header: `ENTRY %main.5 (a: f32[]) -> f32[] {`, `%fused (p: f32[8]) -> f32[8] {`, `add {`. */
const HLO_COMPUTATION = /^\s*(?:ENTRY\s|%?[\w.\-]+\s*(?:\([^)]*\)\s*->\s*.+)?\{\s*$)/;
/** How an MLIR file's first statement starts: `module`, `func.func`, `#loc = …`, `!t = …`, `"op"(…)`, `dialect.op`, `%0 = …`. */
const MLIR_START = /^\s*(?:module\b|builtin\.module\b|func\.func\b|func\s+@|#[\w.$-]+\s*=|![\w.$-]+\s*=|"[\w$]+\.[\w.$]+"|[a-z_]\w*\.[\w.$]+[\s({<@]|%[\w#:$.-]+\s*=\s*"?[a-z_]\w*\.)/;
const JAXPR_START = /^\s*(?:let\s+\S+\s*=\s*)?\{\s*lambda\b/;
/** Markers of a compiled module: the scheduler ran, or fusion instructions exist. */
const HLO_OPTIMIZED = /is_scheduled=true|\bfusion\([^\n]*\bkind=k[A-Z]\w*/;
/** XLA's buffer assignment (`*.buffer-assignment.txt`): `BufferAssignment:`, or straight into `allocation 0: size 16384, parameter 1, …`. */
const BUFFER_ASSIGNMENT_START = /^\s*(?:BufferAssignment:\s*$|allocation \d+: size \d+)/;
/** XLA's memory-usage report (`*.memory-usage-report.txt`): `Memory Space: default (color=0)` then `Total bytes: 29644 (28.9KiB)`. */
const MEMORY_REPORT_START = /^\s*Memory Space: \S/;
const MEMORY_REPORT_TABLE = /^\s*Total bytes: \d+[^\n]*\n\s*cumulative_size;/m;

/**
 * What a text is: `trace` (Chrome-trace / Perfetto JSON), `jaxpr`, `stablehlo` (any MLIR: StableHLO,
 * MHLO, CHLO, VHLO, Shardy), `hlo` (HLO before optimization) or `hlo-opt` (after: scheduled, or
 * holding fusion instructions), `buffer-assignment` or `memory-report` (XLA's own plan of a
 * compiled module), else `text`. Decided from the first statement after comments,
 * then from markers anywhere in the first 64 KiB. Pure and fast; never throws.
 */
export function detectKind(text: string): DocumentKind {
  const head = text.slice(0, 65536);
  const first = firstStatements(head, 8);
  const line = first[0] ?? '';
  if (JAXPR_START.test(line) || (/^\s*let\b/.test(line) && JAXPR_START.test(first.slice(0, 2).join(' ')))) return DocumentKind.jaxpr;
  if (/^\s*[[{]/.test(head) && /"traceEvents"\s*:|"ph"\s*:\s*"/.test(head)) return DocumentKind.trace;
  if (BUFFER_ASSIGNMENT_START.test(line)) return DocumentKind.bufferAssignment;
  if (MEMORY_REPORT_START.test(line) || MEMORY_REPORT_TABLE.test(head)) return DocumentKind.memoryReport;
  if (/^\s*(?:HloModule\b|hlo_module\s*\{)/.test(line) || isHloBody(first)) return hloKind(text);
  if (MLIR_START.test(line)) return DocumentKind.stablehlo;
  if (/^\s*HloModule\b/m.test(head)) return hloKind(text);
  if (/\{\s*lambda\s[^}]*\.\s*let\b/.test(head)) return DocumentKind.jaxpr;
  if (/\b(?:stablehlo|mhlo|chlo|vhlo|sdy|func)\.[a-z_]+/.test(head) && /tensor<|!stablehlo\.token/.test(head)) return DocumentKind.stablehlo;
  return DocumentKind.text;
}

/** HLO before or after optimization. */
function hloKind(text: string): DocumentKind {
  return HLO_OPTIMIZED.test(text) ? DocumentKind.hloOpt : DocumentKind.hlo;
}

/** A module text without the `HloModule` line: a computation header followed by instructions. */
function isHloBody(lines: readonly string[]): boolean {
  const [a, b] = lines;
  if (a === undefined) return false;
  if (/^\s*module\b/.test(a)) return false;
  if (HLO_INSTRUCTION.test(a)) return true;
  return HLO_COMPUTATION.test(a) && b !== undefined && HLO_INSTRUCTION.test(b);
}

/** The first `count` lines that are not blank, `//` or `# ` comments, `/* … *\/` comments or Markdown fences. */
function firstStatements(head: string, count: number): string[] {
  const out: string[] = [];
  let inBlock = false;
  for (const raw of head.split('\n')) {
    const line = raw.trim();
    if (inBlock) {
      if (line.includes('*/')) inBlock = false;
      continue;
    }
    // `# RUN:` lines of lit tests; `#loc1 = …` is a statement
    if (line === '' || line.startsWith('//') || line.startsWith('```') || line.startsWith('# ')) continue;
    if (line.startsWith('/*')) {
      if (!line.includes('*/')) inBlock = true;
      continue;
    }
    out.push(raw);
    if (out.length >= count) break;
  }
  return out;
}
