import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { analyze, computeGate, indexHlo, type Analysis } from '../ir';
import { describe, expect, it } from 'vitest';
import type { Annotation } from './annotation';
import { quoteOf } from './annotation';
import type { DocumentMeta } from './document';
import { buildExport, exportToJson, exportToMarkdown, formatBytes, type ExportedAnnotation, type RoomExport } from './export';
import type { GateReport } from './gate-report';
import type { CaptureEntry } from './jobs';

const TEXT = ['HloModule m', '', 'ENTRY main {', '  %p = f32[4]{0} parameter(0)', '  %fusion.3 = bf16[8192,8192]{1,0} fusion(%p), kind=kLoop, calls=%fc', '}'].join('\n');
const DOCS: DocumentMeta[] = [
  { id: 'd1', title: 'attention.hlo', kind: 'hlo-opt', bytes: TEXT.length, sha256: 'x', createdAt: 1 },
  { id: 'd2', title: 'notes ``` tricky', kind: 'text', bytes: 3, sha256: 'y', createdAt: 2 },
];
const author = { id: 'u1', name: 'Ada', color: '#123456' };

function annotation(over: Partial<Annotation> & Pick<Annotation, 'id' | 'from' | 'to'>, text = TEXT): Annotation {
  return { docId: 'd1', quote: quoteOf(text, over.from, over.to), kind: 'note', body: '', author, createdAt: 10, resolved: false, replies: [], ...over };
}

describe('room export', () => {
  const from = TEXT.indexOf('%fusion.3');
  const spill = annotation({
    id: 'a1', from, to: from + '%fusion.3'.length, kind: 'spill', body: 'the S×S score matrix\nwritten then read back',
    instruction: 'fusion.3', bytes: 134_217_728, traffic: 268_435_456,
    replies: [{ id: 'r1', body: 'agreed', author: { id: 'u2', name: 'Bo', color: '#000' }, createdAt: 11 }],
  });

  it('quotes the whole lines an annotation marks, with kind, size, traffic, thread and status', () => {
    const e = buildExport({ roomId: 'r', title: 'Lab', documents: DOCS, annotations: [spill], textOf: (id) => (id === 'd1' ? TEXT : undefined), now: 0 });
    expect(e.annotations[0]).toMatchObject({ document: 'attention.hlo', lineFrom: 5, lineTo: 5, detached: false, quoted: TEXT.split('\n')[4] });
    const md = exportToMarkdown(e);
    expect(md).toContain('### **spill** · `fusion.3` · 134,217,728 B (128 MiB) · 268,435,456 B (256 MiB) traffic · open');
    expect(md).toContain(`\`\`\`\n${TEXT.split('\n')[4]}\n\`\`\``);
    expect(md).toContain('attention.hlo, line 5 — Ada');
    expect(md).toContain('> the S×S score matrix\n> written then read back');
    expect(md).toContain('- **Bo**: agreed');
    expect(md).toContain(`- attention.hlo (hlo-opt, ${TEXT.length} B)`);
  });

  it('orders annotations by document, then position, and flags a quote the text no longer holds', () => {
    const later = annotation({ id: 'a2', from: 0, to: 9, createdAt: 5 });
    const moved = { ...annotation({ id: 'a3', from: 0, to: 3, docId: 'd2' }), quote: { prefix: '', exact: 'gone', suffix: '' } };
    const e = buildExport({ roomId: 'r', title: 'Lab', documents: DOCS, annotations: [moved, spill, later], textOf: (id) => (id === 'd1' ? TEXT : 'abc'), now: 0 });
    expect(e.annotations.map((a) => a.id)).toEqual(['a2', 'a1', 'a3']);
    expect(e.annotations[2]).toMatchObject({ detached: true, quoted: 'gone' });
    expect(exportToMarkdown(e)).toContain('· open · detached');
  });

  it('fences quotes that contain backticks with a longer fence', () => {
    const text = 'a ``` b';
    const a = annotation({ id: 'a1', docId: 'd2', from: 0, to: text.length }, text);
    const md = exportToMarkdown(buildExport({ roomId: 'r', title: 'Lab', documents: DOCS, annotations: [a], textOf: () => text, now: 0 }));
    expect(md).toContain('````\na ``` b\n````');
  });

  it('cuts a long quote and says how many lines it left out', () => {
    const text = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n');
    const a = annotation({ id: 'a1', from: 0, to: text.length }, text);
    const e = buildExport({ roomId: 'r', title: 'Lab', documents: DOCS, annotations: [a], textOf: () => text, now: 0 });
    expect(e.annotations[0]?.quoted.split('\n')).toHaveLength(21);
    expect(e.annotations[0]?.quoted).toMatch(/… 10 more lines$/);
    expect(e.annotations[0]).toMatchObject({ lineFrom: 1, lineTo: 30 });
  });

  it('says so when the room has nothing yet', () => {
    const md = exportToMarkdown(buildExport({ roomId: 'r', title: 'Empty', documents: [], annotations: [], textOf: () => undefined, now: 0 }));
    expect(md).toContain('No documents.');
    expect(md).toContain('## Annotations (0)');
  });

  it('formats byte counts exactly, with a binary unit', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1,536 B (1.5 KiB)');
  });
});

/** What an attacker types into titles, names, bodies and instructions, and what dumps may hold. */
const HOSTILE = [
  '<script>alert(1)</script>', '<img src=x onerror=alert(1)>', '<!-- x -->', '</p>', '<a href="javascript:alert(1)">x</a>',
  '[x](javascript:alert(1))', '[x]( javascript:alert(1) "t")', '![i](data:text/html;base64,PHNjcmlwdD4=)', '[v](vbscript:msgbox)',
  '<javascript:alert(1)>', '<data:text/html,<b>>', '[ref]: javascript:alert(1)', '[ref]', '[x][ref]', 'javascript:alert(1)',
  '`', '``', '```', '````', '~~~', '\\', '\\[', '&lt;script&gt;', '&#60;', '\n', '\r\n', '\r', '\n\n# heading\n', '\n- item', '\n> quote',
  '    indented', '*', '**', '_', '|', '---', '===', '<', '>', '[', ']', '(', ')', '!',
];
const hostile = fc.array(fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ maxLength: 6 })), { maxLength: 10 }).map((parts) => parts.join(''));

/** Removes the code spans of one Markdown line (CommonMark: a backtick run closed by the next run of the same length). */
function withoutCodeSpans(line: string): string {
  let out = '';
  for (let i = 0; i < line.length;) {
    if (line[i] === '\\') {
      out += line.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (line[i] !== '`') {
      out += line[i];
      i++;
      continue;
    }
    const run = /^`+/.exec(line.slice(i))![0];
    let close = -1;
    for (const m of line.slice(i + run.length).matchAll(/`+/g)) {
      if (m[0].length === run.length) {
        close = i + run.length + m.index;
        break;
      }
    }
    if (close < 0) {
      out += run;
      i += run.length;
    } else {
      out += ' ';
      i = close + run.length;
    }
  }
  return out;
}

/** Characters `ch` in `line` not escaped by a backslash. */
function unescaped(line: string, ch: string): number {
  let n = 0;
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '\\') i++;
    else if (line[i] === ch) n++;
  }
  return n;
}

/** Splits Markdown into the lines outside fenced code blocks and the blocks themselves (CommonMark fences). */
function scanMarkdown(md: string): { outside: string[]; blocks: { fence: string; content: string }[] } {
  const outside: string[] = [];
  const blocks: { fence: string; content: string }[] = [];
  let open: { fence: string; lines: string[] } | null = null;
  for (const line of md.split(/\r\n|\r|\n/)) {
    if (open) {
      const close = /^ {0,3}(`+)[ \t]*$/.exec(line);
      if (close && close[1]!.length >= open.fence.length) {
        blocks.push({ fence: open.fence, content: open.lines.join('\n') });
        open = null;
      } else {
        open.lines.push(line);
      }
      continue;
    }
    const opening = /^ {0,3}(`{3,})[^`]*$/.exec(line) ?? /^ {0,3}(~{3,})/.exec(line);
    if (opening) open = { fence: opening[1]!, lines: [] };
    else outside.push(line);
  }
  expect(open, 'every fence is closed').toBeNull();
  return { outside, blocks };
}

describe('room export of hostile text', () => {
  const exported = fc.record({
    title: hostile, docTitle: hostile, name: hostile, body: hostile, reply: hostile, replier: hostile, instruction: hostile, quoted: hostile, docId: hostile,
    notes: hostile, runner: hostile, device: hostile, flags: hostile, error: hostile, op: hostile,
  }).map((h): { e: RoomExport; quoted: string } => {
    const a: ExportedAnnotation = {
      id: 'a1', docId: h.docId, from: 0, to: 1, quote: { prefix: '', exact: h.quoted, suffix: '' }, kind: 'note', body: h.body,
      author: { id: 'u', name: h.name, color: '#000' }, createdAt: 0, resolved: false, instruction: h.instruction,
      replies: [{ id: 'r1', body: h.reply, author: { id: 'v', name: h.replier, color: '#000' }, createdAt: 1 }],
      document: h.docTitle, quoted: h.quoted, detached: true,
    };
    const e: RoomExport = {
      format: 'seam-room-export', version: 1, room: { id: 'r', title: h.title }, exportedAt: 0,
      documents: [{ id: 'd', title: h.docTitle, kind: 'text', bytes: 1, sha256: 'x', createdAt: 0 }], annotations: [a],
      notes: `${h.notes}.`,
      captures: [{
        captureId: 'c', label: h.docTitle, entry: 'f', args: [], status: 'failed', requestedBy: h.name, createdAt: 0, figures: { flops: 1 }, documents: [h.docTitle],
        provenance: { runner: h.runner, platform: h.device, deviceKind: h.device, jax: h.device, xlaFlags: h.flags }, error: { reason: 'program-error', message: h.error },
      }],
      mappings: [{
        group: 'capture:c', label: h.docTitle, stablehloWithoutLocs: true,
        documents: { jaxpr: { id: 'j', title: h.docTitle }, stablehlo: { id: 's', title: h.title }, hlo: { id: 'h', title: h.name } },
        rows: [{
          equation: h.op, primitive: h.op, scope: h.op, line: 1, source: { opName: h.op, file: h.op, line: 1 },
          stablehlo: [{ name: h.op, op: h.op, scope: h.op, line: 1 }], hlo: [{ name: h.op, op: h.op, scope: h.op, line: 1, fusion: h.op }],
        }],
      }],
    };
    return { e, quoted: h.quoted };
  });

  it('writes Markdown with no tag, no link of any scheme, no heading of its own and fences longer than any backtick run they hold', () => {
    fc.assert(fc.property(exported, ({ e, quoted }) => {
      const md = exportToMarkdown(e);
      const { outside, blocks } = scanMarkdown(md);
      expect(blocks.map((b) => b.content)).toEqual([quoted.replace(/\r\n|\r/g, '\n')]);
      for (const b of blocks) expect(b.fence.length).toBeGreaterThan(Math.max(0, ...[...b.content.matchAll(/`+/g)].map((m) => m[0].length)));
      for (const line of outside.map(withoutCodeSpans)) {
        expect(line).not.toContain('<');
        expect(unescaped(line, '[')).toBe(0);
        expect(unescaped(line, ']')).toBe(0);
        expect(line).not.toMatch(/(^|[^\\])`/);
      }
      expect(outside.filter((l) => l.startsWith('#'))).toEqual([
        `# ${outside[0]!.slice(2)}`, '## Documents', '## Annotations (1)', expect.stringMatching(/^### \*\*note\*\* · /), '## Notes',
        '## Captures (1)', expect.stringMatching(/^### /), '## Mapping tables (1)', expect.stringMatching(/^### /),
      ]);
      // Every table row has its six cells, whatever the names hold.
      for (const row of outside.filter((l) => l.startsWith('| '))) expect(unescaped(row, '|')).toBe(7);
      expect(outside.filter((l) => /^\s*[~`]{3}/.test(l))).toEqual([]);
      expect(outside.filter((l) => /^> ([#+=|-]|\d+[.)])/.test(l))).toEqual([]);
    }), { numRuns: 300 });
    // 300 exports with every section: a deadline a loaded machine meets, not a timing.
  }, 60_000);

  it('writes JSON with no raw angle bracket or ampersand that still reads back as the same export', () => {
    fc.assert(fc.property(exported, ({ e }) => {
      const json = exportToJson(e);
      expect(json).not.toMatch(/[<>&\u2028\u2029]/);
      expect(JSON.parse(json)).toEqual(e);
    }), { numRuns: 200 });
  });

  it('keeps hostile text readable: entities and escapes, not dropped characters', () => {
    const md = exportToMarkdown({ ...buildExport({ roomId: 'r', title: '<b>[x](javascript:alert(1))</b>', documents: [], annotations: [], textOf: () => undefined, now: 0 }) });
    expect(md.split('\n')[0]).toBe('# &lt;b&gt;\\[x\\](javascript:alert(1))&lt;/b&gt;');
  });
});


describe('gates in the export', () => {
  const HLO = readFileSync(new URL('../../../test/fixtures/gate/attention-cpu/hlo-opt.txt', import.meta.url), 'utf8');
  const ops = JSON.parse(readFileSync(new URL('../../../test/fixtures/gate/attention-cpu/ops.json', import.meta.url), 'utf8')) as { name: string; module: string; totalUs: number; count: number }[];
  const gate = computeGate({
    index: indexHlo(HLO, 'hlo-opt').index, opTimes: ops.map((r) => ({ module: r.module, op: r.name, totalUs: r.totalUs, count: r.count })),
    bandwidthBytesPerS: 33e9, runs: 3, costModelBytes: 2_349_694_976,
  });
  const bandwidth = {
    method: 'jit(x + 1) <img src=x onerror=alert(1)>', bytes: 1, calls: 1, trials: 1, seconds: 1, bytesPerSecond: 33e9, bestBytesPerSecond: 33e9,
    deviceKind: 'cpu', nameplateBytesPerSecond: null, fractionOfNameplate: null,
  };
  const report: GateReport = {
    captureId: 'job_1', gate, platform: 'cpu', candidates: [],
    sources: { hloOpt: { documentId: 'd1', title: '[click](javascript:alert(1)) <b>hlo</b>' }, trace: { documentId: 'd3', title: '# trace' }, bandwidth, runs: 3 },
  };

  it('writes each gate as its verdict and figures, every title and dump name inert, and refusals by reason', () => {
    const e = buildExport({ roomId: 'r', title: 'Lab', documents: DOCS, annotations: [], textOf: () => undefined, now: 0, gates: [report, { captureId: 'job_2', reason: 'no-trace', message: 'no <trace>' }] });
    expect(e.gates).toHaveLength(2);
    const md = exportToMarkdown(e);
    expect(md).toContain('## Gates (2)');
    expect(md).toContain('### Capture `job_1`: `convert_exponential_fusion` · FAIL · measured / estimate ');
    expect(md).toContain('CPU: figures are what this CPU gives.');
    expect(md).toContain('- estimate: 268,435,456 B × (1 write + 2 reads) = 805.3 MB (805,306,368 B)');
    expect(md).toContain('### Capture `job_2`: no gate');
    expect(md).not.toMatch(/<(b|img|trace)\b/);
    expect(md).not.toMatch(/[^\\]\]\(javascript/);
    expect(md).toContain('\\[click\\](javascript:alert(1)) &lt;b&gt;hlo&lt;/b&gt;');
    expect(JSON.parse(exportToJson(e))).toEqual(e);
  });
});

describe('trace annotations in the export', () => {
  const TRACE: DocumentMeta = { id: 't1', title: 'attention.trace.json.gz', kind: 'trace', bytes: 10, sha256: 'z', createdAt: 3 };
  const on = (id: string, trace: Annotation['trace'], body = ''): Annotation => ({
    id, docId: 't1', from: 0, to: 0, quote: { prefix: '', exact: '', suffix: '' }, kind: 'question', body, author, createdAt: 20, resolved: false, replies: [], trace,
  });

  it('lists each with its anchor, and no quoted text', () => {
    const e = buildExport({
      roomId: 'r', title: 'Room', documents: [TRACE], now: 0, textOf: () => undefined,
      annotations: [on('o', { type: 'op', op: 'convert_exponential_fusion', module: 'jit_attention' }, 'why so long?'), on('r', { type: 'range', fromUs: 12_300, toUs: 15_000 })],
    });
    expect(e.annotations.map((a) => a.trace)).toEqual([{ type: 'op', op: 'convert_exponential_fusion', module: 'jit_attention' }, { type: 'range', fromUs: 12_300, toUs: 15_000 }]);
    expect(e.annotations[0]).toMatchObject({ document: 'attention.trace.json.gz', quoted: '', detached: false });
    const md = exportToMarkdown(e);
    expect(md).toContain('attention.trace.json.gz, op `convert_exponential_fusion` in `jit_attention` — Ada,');
    expect(md).toContain('attention.trace.json.gz, 12.3–15.0 ms — Ada,');
    expect(md).not.toContain('```');
    expect(JSON.parse(exportToJson(e))).toEqual(e);
  });

  it('writes hostile op, module and track names as inert text', () => {
    const e = buildExport({
      roomId: 'r', title: 'Room', documents: [TRACE], now: 0, textOf: () => undefined,
      annotations: [
        on('o', { type: 'op', op: 'x`</code><img src=x onerror=alert(1)>', module: '[m](javascript:alert(1))' }),
        on('r', { type: 'range', fromUs: 1, toUs: 2, track: '<script>alert(1)</script>\n# heading' }),
      ],
    });
    const md = exportToMarkdown(e);
    // Dump names are code spans (as instructions are), in which markup is text; the rest is escaped.
    expect(md).not.toMatch(/<script|\n# heading/);
    expect(md).toContain('op ``x`</code><img src=x onerror=alert(1)>`` in `[m](javascript:alert(1))`');
    expect(md).toContain('on &lt;script&gt;alert(1)&lt;/script&gt; # heading — Ada');
    expect(exportToJson(e)).not.toMatch(/[<>&]/);
  });
});

describe('what the room knows, in the export', () => {
  const fixture = (name: string) => readFileSync(new URL(`../../../test/fixtures/ir/mlp/${name}`, import.meta.url), 'utf8');
  const MLP = { jaxpr: fixture('jaxpr.txt'), stablehlo: fixture('stablehlo-debug.mlir'), hlo: fixture('hlo-opt.txt') };
  const ATTENTION = readFileSync(new URL('../../../test/fixtures/gate/attention-cpu/hlo-opt.txt', import.meta.url), 'utf8');
  const doc = (id: string, kind: DocumentMeta['kind'], over: Partial<DocumentMeta> = {}): DocumentMeta => ({ id, title: `${id}.txt`, kind, bytes: 1, sha256: id, createdAt: 0, ...over });
  // Capture c1 holds the MLP's three layers; module group m1 holds a second copy; loose documents of each layer sit around them.
  const documents: DocumentMeta[] = [
    doc('loose-jaxpr', 'jaxpr'),
    doc('c1-jaxpr', 'jaxpr', { captureId: 'c1' }), doc('c1-shlo', 'stablehlo', { captureId: 'c1' }), doc('c1-hlo', 'hlo', { captureId: 'c1' }), doc('c1-opt', 'hlo-opt', { captureId: 'c1' }),
    doc('m1-opt', 'hlo-opt', { module: { groupId: 'g1', name: 'jit_mlp', number: 7, path: 'module_0007.jit_mlp.sm_8.0_gpu_after_optimizations.txt' } }),
    doc('m1-jaxpr', 'jaxpr', { module: { groupId: 'g1', name: 'jit_mlp', number: 7, path: 'jaxpr.txt' } }),
    doc('m1-shlo', 'stablehlo', { module: { groupId: 'g1', name: 'jit_mlp', number: 7, path: 'module_0007.jit_mlp.stablehlo.mlir' } }),
    doc('c2-jaxpr', 'jaxpr', { captureId: 'c2' }), doc('c2-opt', 'hlo-opt', { captureId: 'c2' }),
    doc('loose-shlo', 'stablehlo'), doc('loose-opt', 'hlo-opt'), doc('attention', 'hlo-opt'),
  ];
  const analyses = new Map<string, Analysis>();
  for (const d of documents) {
    const layer = d.kind === 'jaxpr' ? MLP.jaxpr : d.kind === 'stablehlo' ? MLP.stablehlo : MLP.hlo;
    analyses.set(d.id, analyze(d.id === 'attention' ? ATTENTION : layer, d.kind));
  }
  const entry = (id: string, over: Partial<CaptureEntry> = {}): CaptureEntry => ({
    id, status: 'done', attempt: 1, entry: 'mlp', args: [{ shape: [32, 64], dtype: 'bfloat16' }], capture: ['jaxpr'], requestedBy: 'Ada', createdAt: 5, updatedAt: 6, documents: [], ...over,
  });
  const captures: CaptureEntry[] = [
    entry('c9', { status: 'failed', createdAt: 1, error: { reason: 'program-error', message: 'NameError: x' } }),
    entry('c2', { createdAt: 3 }),
    entry('c1', {
      createdAt: 2,
      provenance: {
        runner: 'local', platform: 'cpu', deviceKind: 'cpu', deviceCount: 1, jax: '0.10.2', jaxlib: '0.10.2', python: '3.11.7', xlaFlags: '--xla_cpu_enable_fast_math=false',
        bandwidth: { method: 'x + 1', bytes: 536_870_912, calls: 5, trials: 3, seconds: 0.016, bytesPerSecond: 33.18e9, bestBytesPerSecond: 34e9, deviceKind: 'cpu', nameplateBytesPerSecond: null, fractionOfNameplate: null },
      },
      analyses: { cost: JSON.parse(fixture('cost.json')) as unknown, memory: JSON.parse(fixture('memory.json')) as unknown },
    }),
  ];
  const built = buildExport({ roomId: 'r', title: 'MLP lab', documents, annotations: [], textOf: () => undefined, now: 0, notes: 'Week 3: # the MLP\n<b>read</b> the fusion', captures, analysisOf: (id) => analyses.get(id) });

  it('writes one mapping table per group with three layers, each from its own group, never pairing loose documents or two groups', () => {
    expect(built.mappings?.map((m) => [m.group, m.label, m.documents.jaxpr.id, m.documents.stablehlo.id, m.documents.hlo.id])).toEqual([
      ['capture:c1', 'capture #1', 'c1-jaxpr', 'c1-shlo', 'c1-opt'],
      ['module:g1', 'module 0007 jit_mlp', 'm1-jaxpr', 'm1-shlo', 'm1-opt'],
    ]);
    const rows = built.mappings![0]!.rows;
    const dot = rows.find((r) => r.primitive === 'dot_general');
    expect(dot?.stablehlo.map((o) => o.op)).toContain('stablehlo.dot_general');
    expect(dot?.hlo.length).toBeGreaterThan(0);
    expect(built.mappings![0]!.stablehloWithoutLocs).toBe(false);
    const md = exportToMarkdown(built);
    expect(md).toContain('## Mapping tables (2)');
    expect(md).toContain('### capture #1\n\njaxpr c1-jaxpr.txt · StableHLO c1-shlo.txt · HLO c1-opt.txt, all of capture #1.');
    expect(md).toContain('### module 0007 jit\\_mlp');
    expect(md).toMatch(/\n\| \d+ \| d \| dot\\_general \| [^|]*program\.py:5:23 \| [^|]*stablehlo\.dot\\_general[^|]* \| [^|]+ \|\n/);
  });

  it('has no mapping table when it is given no analyses, or a layer of a group has none', () => {
    expect(buildExport({ roomId: 'r', title: 't', documents, annotations: [], textOf: () => undefined, now: 0 }).mappings).toBeUndefined();
    const some = buildExport({ roomId: 'r', title: 't', documents, annotations: [], textOf: () => undefined, now: 0, analysisOf: (id) => (id === 'c1-shlo' ? undefined : analyses.get(id)) });
    expect(some.mappings?.map((m) => m.group)).toEqual(['module:g1']);
  });

  it('takes the mapping tables a caller made group by group instead of making them again', () => {
    const one = built.mappings!.slice(1);
    const e = buildExport({ roomId: 'r', title: 't', documents, annotations: [], textOf: () => undefined, now: 0, analysisOf: (id) => analyses.get(id), mappings: one });
    expect(e.mappings).toEqual(one);
  });

  it('says when a group’s StableHLO has no debug info to join on', () => {
    const bare = analyze(fixture('stablehlo.mlir'), 'stablehlo');
    const e = buildExport({ roomId: 'r', title: 't', documents, annotations: [], textOf: () => undefined, now: 0, analysisOf: (id) => (id === 'c1-shlo' ? bare : analyses.get(id)) });
    expect(e.mappings?.[0]).toMatchObject({ group: 'capture:c1', stablehloWithoutLocs: true });
    expect(e.mappings?.[0]?.rows.every((r) => r.stablehlo.length === 0)).toBe(true);
    expect(exportToMarkdown(e)).toContain('The StableHLO was printed without debug info');
  });

  it('lists each capture in document-list order with its provenance and cost figures, then those that left no documents', () => {
    expect(built.captures?.map((c) => [c.captureId, c.label])).toEqual([['c1', 'capture #1'], ['c2', 'capture #2'], ['c9', 'capture c9']]);
    expect(built.captures?.[0]).toMatchObject({
      documents: ['c1-jaxpr.txt', 'c1-shlo.txt', 'c1-hlo.txt', 'c1-opt.txt'],
      figures: { flops: 563_360, bytesAccessed: 38_464, argumentBytes: 20_736, outputBytes: 64, tempBytes: 8832 },
    });
    const md = exportToMarkdown(built);
    expect(md).toContain('## Captures (3)');
    expect(md).toContain([
      '### capture #1 · `mlp(bf16[32,64])` · done', '', 'Requested by Ada, 1970-01-01T00:00:00.002Z.', '',
      '- runner: local', '- device: cpu', '- versions: JAX 0.10.2 · jaxlib 0.10.2 · Python 3.11.7', '- XLA flags: --xla\\_cpu\\_enable\\_fast\\_math=false',
      '- bandwidth: 33.18 GB/s measured copy (best 34.00 GB/s)', '- cost analysis: 563,360 FLOPs · 38,464 B (37.6 KiB) accessed',
      '- memory analysis: arguments 20,736 B (20.3 KiB) · output 64 B · temporaries 8,832 B (8.6 KiB)',
      '- documents: c1-jaxpr.txt; c1-shlo.txt; c1-hlo.txt; c1-opt.txt',
    ].join('\n'));
    expect(md).toContain('### capture c9 · `mlp(bf16[32,64])` · failed');
    expect(md).toContain('- error: program-error: NameError: x');
  });

  it('quotes the notes line by line as inert text', () => {
    expect(built.notes).toBe('Week 3: # the MLP\n<b>read</b> the fusion');
    expect(exportToMarkdown(built)).toContain('## Notes\n\n> Week 3: # the MLP\n> &lt;b&gt;read&lt;/b&gt; the fusion\n');
    expect(buildExport({ roomId: 'r', title: 't', documents, annotations: [], textOf: () => undefined, now: 0, notes: ' \n ' }).notes).toBeUndefined();
  });

  it('gives a spill marked from a selection the size, traffic and readers of the candidate it marks, from the analysis', () => {
    const top = analyses.get('attention')!.index.spills[0]!;
    const line = ATTENTION.split('\n')[top.line - 1]!;
    const lineFrom = ATTENTION.indexOf(line);
    const marked = annotation({ id: 's1', docId: 'attention', kind: 'spill', from: lineFrom + 2, to: lineFrom + 12 }, ATTENTION);
    const plain = annotation({ id: 's2', docId: 'attention', kind: 'note', from: lineFrom + 2, to: lineFrom + 12 }, ATTENTION);
    const e = buildExport({ roomId: 'r', title: 't', documents, annotations: [marked, plain], textOf: (id) => (id === 'attention' ? ATTENTION : undefined), now: 0, analysisOf: (id) => analyses.get(id) });
    expect(e.annotations[0]).toMatchObject({ id: 's1', instruction: top.producer, bytes: top.bytes, traffic: top.traffic, readers: top.consumers, figuresFrom: 'analysis' });
    expect(e.annotations[1]).not.toHaveProperty('bytes');
    const md = exportToMarkdown(e);
    expect(md).toContain(`### **spill** · \`${top.producer}\` · ${formatBytes(top.bytes)} · ${formatBytes(top.traffic)} traffic · figures from the analysis · open`);
    expect(md).toContain(`Read back by ${top.consumers.map((c) => `\`${c}\``).join(', ')}.`);
    // The author's own figures stay as written.
    const own = { ...marked, id: 's3', instruction: top.producer, bytes: 1, traffic: 2 };
    const kept = buildExport({ roomId: 'r', title: 't', documents, annotations: [own], textOf: () => ATTENTION, now: 0, analysisOf: (id) => analyses.get(id) }).annotations[0];
    expect(kept).toMatchObject({ bytes: 1, traffic: 2, readers: top.consumers });
    expect(kept).not.toHaveProperty('figuresFrom');
  });
});
