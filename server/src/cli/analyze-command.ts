import { readFile } from 'node:fs/promises';
import { analyze, type Analysis, type Diagnostic, type LoopInfo, type OutlineEntry } from '@seam/shared/ir';
import { formatBytes } from '@seam/shared/model';
import { columns } from './format';

/** Where a command writes: stdout and stderr lines. */
export interface Output {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

/**
 * `seam analyze FILE... [--json]`: analyzes each file in turn (one at a time, so memory stays at
 * one dump). Returns the exit status: 0 when every file was read, 1 when some could not be.
 */
export async function runAnalyze(files: readonly string[], json: boolean, top: number, io: Output): Promise<number> {
  let status = 0;
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      status = 1;
      const message = e instanceof Error ? e.message : String(e);
      if (json) io.out(JSON.stringify({ file, error: message }));
      else io.err(`seam: cannot read ${file}: ${message}`);
      continue;
    }
    const a = analyze(text);
    if (json) io.out(JSON.stringify({ file, kind: a.index.kind, diagnostics: a.diagnostics.map(plainDiagnostic), index: a.index }));
    else for (const line of describe(file, text, a, top)) io.out(line);
  }
  return status;
}

function plainDiagnostic(d: Diagnostic): Diagnostic {
  return { severity: d.severity, message: d.message, from: d.from, to: d.to };
}

/** The human summary of one analysis. */
export function describe(file: string, text: string, a: Analysis, top: number): string[] {
  const ix = a.index;
  const lines = [`${file}: ${ix.kind}, ${ix.lines.toLocaleString('en-US')} lines, ${formatBytes(ix.bytes)}`];
  const counts = new Map<string, number>();
  const walk = (es: readonly OutlineEntry[]): void => {
    for (const e of es) {
      counts.set(e.kind, (counts.get(e.kind) ?? 0) + 1);
      if (e.children) walk(e.children);
    }
  };
  walk(ix.outline);
  lines.push(`  outline: ${[...counts].map(([k, n]) => `${n} ${k}${n === 1 ? '' : 's'}`).join(', ') || 'empty'}; ${ix.values.length} values, ${ix.keys.length} keyed ops`);
  for (const e of ix.outline.slice(0, 20)) lines.push(`    ${e.kind} ${e.name}  lines ${e.lineFrom}-${e.lineTo}, ${e.opCount} ops${e.isEntry ? ', entry' : ''}`);
  if (ix.outline.length > 20) lines.push(`    … ${ix.outline.length - 20} more`);
  if (ix.fusions.length > 0) {
    lines.push(`  fusions: ${ix.fusions.length}`);
    const rows = ix.fusions.slice(0, top).map((f) => [`    ${f.name}`, f.kind, `calls ${f.calls}`, `${f.fusedOps} ops`, `in ${formatBytes(f.inputBytes)}`, `out ${formatBytes(f.outputBytes)}`]);
    lines.push(...columns(rows));
  }
  if (ix.spills.length > 0) {
    lines.push(`  spill candidates: ${ix.spills.length} (top ${Math.min(top, ix.spills.length)} by traffic)`);
    const rows = ix.spills.slice(0, top).map((s) => [`    ${s.producer}`, s.type, formatBytes(s.bytes), `traffic ${formatBytes(s.traffic)}`, `read by ${s.consumers.join(', ')}`, s.loop ? loopText(s.loop) : '', `line ${s.line}`]);
    lines.push(...columns(rows));
  }
  if (ix.dots.length > 0) {
    lines.push(`  dot_general: ${ix.dots.length}`);
    const rows = ix.dots.slice(0, top).map((d) => [`    ${d.name}`, d.einsum, `[${d.lhs.join('x')}] · [${d.rhs.join('x')}]`, `contracting ${list(d.lhsContracting)} x ${list(d.rhsContracting)}`, `batch ${list(d.lhsBatch)} x ${list(d.rhsBatch)}`, `line ${d.line}`]);
    lines.push(...columns(rows));
  }
  const errors = a.diagnostics.filter((d) => d.severity === 'error').length;
  lines.push(`  diagnostics: ${a.diagnostics.length}${errors ? ` (${errors} errors)` : ''}`);
  for (const d of a.diagnostics.slice(0, top)) lines.push(`    ${position(text, d.from)} ${d.severity}: ${d.message}`);
  return lines;
}

/** `in while.11 ×4`, `in while.3 (trips unknown)`, `in place in while.11 (×4 not counted)`. */
function loopText(loop: LoopInfo): string {
  const where = `in ${loop.whiles.join(' > ')}`;
  if (loop.trips === undefined) return `${where} (trips unknown)`;
  return loop.inPlace ? `in place ${where} (×${loop.trips} not counted)` : `${where} ×${loop.trips}`;
}

function list(xs: readonly number[]): string {
  return `[${xs.join(',')}]`;
}

/** `line:column` (1-based) of an offset. */
function position(text: string, offset: number): string {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return `${line}:${offset - start + 1}`;
}
