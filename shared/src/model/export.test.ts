import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { computeGate, indexHlo } from '../ir';
import { describe, expect, it } from 'vitest';
import type { Annotation } from './annotation';
import { quoteOf } from './annotation';
import type { DocumentMeta } from './document';
import { buildExport, exportToJson, exportToMarkdown, formatBytes, type ExportedAnnotation, type RoomExport } from './export';
import type { GateReport } from './gate-report';

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
      expect(outside.filter((l) => l.startsWith('#'))).toEqual([`# ${outside[0]!.slice(2)}`, '## Documents', '## Annotations (1)', expect.stringMatching(/^### \*\*note\*\* · /)]);
      expect(outside.filter((l) => /^\s*[~`]{3}/.test(l))).toEqual([]);
      expect(outside.filter((l) => /^> ([#+=|-]|\d+[.)])/.test(l))).toEqual([]);
    }), { numRuns: 300 });
  });

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
