import { formatBytes } from '../../model/export';
import { markdownCell } from '../link';
import type { DiffKernel, DiffPlace, DiffSpill, ModuleDiff } from './types';

/** How many rows each list shows before `… N more` (the JSON has them all). */
const LISTED = 50;

/**
 * The diff as Markdown: a summary table (A against B), then fusion changes, custom calls, spill
 * candidates with their bytes and traffic, computations, and the instructions only one side has
 * (each list up to `limit` rows). Dump text is escaped for table cells by `escape` (by default
 * `|` and line breaks only; the room export passes its inert-text escape).
 */
export function diffToMarkdown(d: ModuleDiff, names: { readonly a: string; readonly b: string } = { a: 'A', b: 'B' }, limit = LISTED, escape: (s: string) => string = markdownCell): string {
  const cell = escape;
  const where = (p: DiffPlace) => cell(`${p.name} in ${p.scope}`);
  const kernels = (ks: readonly DiffKernel[]) => ks.map((k) => `${cell(k.name)} (${cell(k.kind ?? k.opcode)}, line ${k.line})`).join('; ') || '-';
  const spill = (s: DiffSpill | undefined) => {
    if (!s) return '-';
    const loop = s.loop ? `, in ${s.loop.whiles.join(' > ')}${s.loop.trips !== undefined ? ` ×${s.loop.trips}` : ''}` : '';
    return `${cell(s.name)} ${cell(s.type)} (line ${s.line}${cell(loop)})`;
  };
  const s = d.summary;
  const out: string[] = [`# Diff: ${cell(names.a)} → ${cell(names.b)}`, ''];
  out.push(s.identical ? 'The modules compute the same ops, fused and spilled alike.' : `${n(s.matched)} instructions matched (${n(s.changed)} of them not exactly), ${n(s.removed)} removed, ${n(s.added)} added.`, '');
  out.push('| | A | B |', '|---|---:|---:|');
  out.push(`| text | ${formatBytes(d.a.bytes)}, ${n(d.a.lines)} lines | ${formatBytes(d.b.bytes)}, ${n(d.b.lines)} lines |`);
  out.push(`| instructions | ${n(d.a.instructions)} | ${n(d.b.instructions)} |`);
  out.push(`| fusions | ${n(d.a.fusions)} | ${n(d.b.fusions)} |`);
  out.push(`| custom calls | ${n(d.a.customCalls)} | ${n(d.b.customCalls)} |`);
  out.push(`| spill candidates | ${n(d.a.spills)} | ${n(d.b.spills)} |`);
  out.push(`| spill traffic | ${formatBytes(d.a.traffic)} | ${formatBytes(d.b.traffic)} |`, '');
  const f = s.fusions;
  out.push(`## Fusions: ${f.kept} kept, ${f.formed} formed, ${f.split} split, ${f.gone} gone, ${f.added} added`, '');
  if (d.fusionChanges.length > 0) {
    out.push('| change | A | B |', '|---|---|---|');
    for (const c of d.fusionChanges.slice(0, limit)) out.push(`| ${c.change} | ${kernels(c.a)} | ${kernels(c.b)} |`);
    more(out, d.fusionChanges.length, limit);
  }
  out.push(`## Custom calls: ${s.customCalls.removed} removed, ${s.customCalls.added} added`, '');
  const calls = [...d.customCalls.removed.map((k) => ['removed', k] as const), ...d.customCalls.added.map((k) => ['added', k] as const)];
  if (calls.length > 0) {
    out.push('| change | kernel | target | line | in | out |', '|---|---|---|---:|---:|---:|');
    for (const [change, k] of calls.slice(0, limit)) out.push(`| ${change} | ${cell(k.kernelName ?? k.name)} | ${cell(k.target)} | ${k.line} | ${formatBytes(k.inputBytes)} | ${formatBytes(k.outputBytes)} |`);
    more(out, calls.length, limit);
  }
  const sp = s.spills;
  out.push(`## Spill candidates: ${sp.disappeared} disappeared (${formatBytes(sp.bytesDisappeared)}), ${sp.appeared} appeared (${formatBytes(sp.bytesAppeared)}), ${sp.kept} kept`, '');
  out.push(`Traffic: ${formatBytes(s.traffic.a)} → ${formatBytes(s.traffic.b)}.`, '');
  if (d.spills.length > 0) {
    out.push('| change | A | B | bytes | traffic |', '|---|---|---|---:|---:|');
    for (const c of d.spills.slice(0, limit)) {
      const bytes = c.a && c.b && c.a.bytes !== c.b.bytes ? `${formatBytes(c.a.bytes)} → ${formatBytes(c.b.bytes)}` : formatBytes((c.a ?? c.b)?.bytes ?? 0);
      const traffic = `${c.a ? formatBytes(c.a.traffic) : '-'} → ${c.b ? formatBytes(c.b.traffic) : '-'}`;
      out.push(`| ${c.change} | ${spill(c.a)} | ${spill(c.b)} | ${bytes} | ${traffic} |`);
    }
    more(out, d.spills.length, limit);
  }
  if (d.opTime) {
    const t = d.opTime;
    out.push(`## Op time (traces): ${us(t.a)} → ${us(t.b)}`, '', `${n(t.ops.a)} ops of A and ${n(t.ops.b)} of B timed; the slowest:`, '');
    out.push('| side | op | opcode | line | total | events |', '|---|---|---|---:|---:|---:|');
    for (const [sideName, list] of [['A', t.slowest.a], ['B', t.slowest.b]] as const) {
      for (const o of list) out.push(`| ${sideName} | ${where(o)} | ${cell(o.opcode)} | ${o.line} | ${us(o.totalUs)} | ${n(o.count)} |`);
    }
    out.push('');
  }
  out.push(`## Computations: ${d.computations.length} paired`, '');
  if (d.computations.length > 0) {
    out.push('| A | line | B | line | matched |', '|---|---:|---|---:|---:|');
    for (const c of d.computations.slice(0, limit)) out.push(`| ${cell(c.a)} | ${c.lineA} | ${cell(c.b)} | ${c.lineB} | ${c.matched} |`);
    more(out, d.computations.length, limit);
  }
  for (const [title, list] of [['Removed (only in A)', d.removed], ['Added (only in B)', d.added]] as const) {
    out.push(`## ${title}: ${list.length}`, '');
    if (list.length === 0) continue;
    out.push('| line | instruction | opcode | type | op_name |', '|---:|---|---|---|---|');
    for (const i of list.slice(0, limit)) out.push(`| ${i.line} | ${where(i)} | ${cell(i.opcode)} | ${cell(i.type)} | ${cell(i.opName ?? '')} |`);
    more(out, list.length, limit);
  }
  const diags = [...d.diagnostics.a.map((x) => `A: ${x.severity}: ${x.message}`), ...d.diagnostics.b.map((x) => `B: ${x.severity}: ${x.message}`)];
  if (diags.length > 0) out.push('## Diagnostics', '', ...diags.map((x) => `- ${cell(x)}`), '');
  return out.join('\n');
}

/** `117765` → `117,765`. */
function n(x: number): string {
  return x.toLocaleString('en-US');
}

/** `1234.5` → `1,234.5 µs`. */
function us(x: number): string {
  return `${x.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })} µs`;
}

function more(out: string[], total: number, limit: number): void {
  if (total > limit) out.push(`| … ${total - limit} more | | |`);
  out.push('');
}
