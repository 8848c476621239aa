import { analyze, detectKind, lacksDebugInfo, lacksNameStacks, linkLayers, mappingToMarkdown, type MappingRow } from '@seam/shared/ir';
import { DocumentKind } from '@seam/shared/model';
import type { Output } from './analyze-command';
import { readTexts } from './read-texts';
import { columns } from './format';

/** What to print for a layer that carries nothing to join on (see `lacksDebugInfo`), by position. */
const NO_DEBUG_INFO = [
  'has no source info (no `# file.py:line:column` comments), so no equation can be told from another on the same primitive by where it came from; print it with pretty_print(source_info=True, name_stack=True)',
  'has no loc(…) debug info, so no StableHLO op can be joined; print it with as_text(debug_info=True)',
  'has no metadata={op_name=…}, so no HLO instruction can be joined; dump it as XLA prints it (compiled.as_text() or --xla_dump_to) without stripping metadata',
] as const;

/**
 * `seam link JAXPR STABLEHLO HLO`: the cross-layer mapping table. Each file is analyzed as the
 * layer its position names (the kind is not guessed), and HLO is read as optimized when it says so.
 * Says on stderr when a layer carries no source info, or the jaxpr no name stacks where the other
 * layers' ops run under transforms (`jvp`, `transpose`): those joins are then guesses.
 * Returns the exit status.
 */
export async function runLink(files: readonly [string, string, string], format: 'table' | 'markdown' | 'json', io: Output): Promise<number> {
  const texts = await readTexts(files, io);
  if (texts === null) return 1;
  const expected = [['jaxpr'], ['stablehlo'], ['hlo', 'hlo-opt']];
  for (let i = 0; i < 3; i++) {
    const kind = detectKind(texts[i] ?? '');
    if (kind !== DocumentKind.text && !expected[i]?.includes(kind)) {
      io.err(`seam: ${files[i]} looks like ${kind}, not ${expected[i]?.join(' or ')}; the order is JAXPR STABLEHLO HLO`);
      return 1;
    }
  }
  const [jt = '', st = '', ht = ''] = texts;
  const hloKind: DocumentKind = /is_scheduled=true|\bfusion\(/.test(ht) ? DocumentKind.hloOpt : DocumentKind.hlo;
  const layers = [analyze(jt, DocumentKind.jaxpr), analyze(st, DocumentKind.stablehlo), analyze(ht, hloKind)] as const;
  layers.forEach((a, i) => {
    const errors = a.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0) io.err(`seam: ${files[i]}: ${errors.length} parse errors; first: ${errors[0]?.message}`);
  });
  layers.forEach((a, i) => {
    if (lacksDebugInfo(a)) io.err(`seam: ${files[i]} ${NO_DEBUG_INFO[i]}`);
  });
  if (lacksNameStacks(...layers)) {
    io.err(`seam: ${files[0]} has no name stacks while the other layers' ops run under transforms (jvp, transpose), so forward and backward ops of one source line cannot be told apart; print it with pretty_print(name_stack=True)`);
  }
  const rows = linkLayers(...layers);
  if (format === 'json') for (const r of rows) io.out(JSON.stringify(r));
  else if (format === 'markdown') io.out(mappingToMarkdown(rows));
  else for (const line of table(rows)) io.out(line);
  return 0;
}

function table(rows: readonly MappingRow[]): string[] {
  const out: string[][] = [['line', 'equation', 'source', 'StableHLO', 'HLO']];
  for (const r of rows) {
    const src = r.source.file ? `${r.source.file}:${r.source.line ?? ''}` : '';
    out.push([String(r.line), `${r.equation} = ${r.primitive}`, src, r.stablehlo.map((o) => `${o.name} ${o.op}`).join(', ') || '-', r.hlo.map((o) => (o.fusion ? `${o.name} (in ${o.fusion})` : o.name)).join(', ') || '-']);
  }
  return columns(out);
}
