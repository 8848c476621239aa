import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { analyze } from '@seam/shared/ir';
import type { Annotation, RoomExport } from '@seam/shared/model';
import { testAppWithDump, TINY_HLO, type TestApp, type TestRoom } from '../testing';

let t: TestApp;
let room: TestRoom;
let docId: string;
beforeEach(async () => {
  ({ t, room, docId } = await testAppWithDump('Attention lab', 'tiny.hlo'));
});
afterEach(() => t.close());

describe('room export', () => {
  it('exports the documents and each annotation with its quoted line, as Markdown and as JSON', async () => {
    const from = TINY_HLO.indexOf('ROOT');
    const created = await t.call('POST', `/api/rooms/${room.id}/annotations`, {
      token: room.tokens.annotator,
      json: { docId, from, to: from + 4, kind: 'question', body: 'why a root?', instruction: 'p', author: { name: 'Ada' } },
    });
    const a = (await created.json()) as Annotation;
    await t.call('POST', `/api/rooms/${room.id}/annotations/${a.id}/replies`, { token: room.tokens.owner, json: { body: 'it is the result', author: { name: 'Bo' } } });

    const md = await t.call('GET', `/api/rooms/${room.id}/export.md`, { token: room.tokens.viewer });
    expect(md.status).toBe(200);
    expect(md.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(md.headers.get('content-disposition')).toBe('attachment; filename="attention-lab.md"');
    const text = await md.text();
    expect(text).toMatch(/^# Attention lab\n/);
    expect(text).toContain(`- tiny.hlo (hlo, ${TINY_HLO.length} B)`);
    expect(text).toContain('### **question** · `p` · open');
    expect(text).toContain('tiny.hlo, line 3 — Ada');
    expect(text).toContain('```\n  ROOT p = f32[4]{0} parameter(0)\n```');
    expect(text).toContain('> why a root?');
    expect(text).toContain('- **Bo**: it is the result');

    const json = await t.call('GET', `/api/rooms/${room.id}/export.json`, { token: room.tokens.viewer });
    expect(json.status).toBe(200);
    const e = (await json.json()) as RoomExport;
    expect(e).toMatchObject({ format: 'seam-room-export', version: 1, room: { id: room.id, title: 'Attention lab' } });
    expect(e.documents.map((d) => d.id)).toEqual([docId]);
    expect(e.annotations).toHaveLength(1);
    expect(e.annotations[0]).toMatchObject({ id: a.id, document: 'tiny.hlo', lineFrom: 3, lineTo: 3, quoted: '  ROOT p = f32[4]{0} parameter(0)', detached: false });
    expect(e.annotations[0]?.replies.map((r) => r.body)).toEqual(['it is the result']);
  });

  it('refuses a request without a valid token, and a token of another room', async () => {
    expect((await t.call('GET', `/api/rooms/${room.id}/export.md`)).status).toBe(401);
    expect((await t.call('GET', `/api/rooms/${room.id}/export.json`, { token: 'nope' })).status).toBe(401);
    const other = await t.room('other');
    const res = await t.call('GET', `/api/rooms/${room.id}/export.md`, { token: other.tokens.owner });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('fills a spill marked from a selection from the stored analysis, and quotes the notes inertly', async () => {
    const hlo = readFileSync(new URL('../../../test/fixtures/gate/attention-cpu/hlo-opt.txt', import.meta.url), 'utf8');
    const hloId = await t.addDocument(room, 'attention.hlo', hlo);
    const top = analyze(hlo, 'hlo-opt').index.spills[0]!;
    const res = await t.call('POST', `/api/rooms/${room.id}/annotations`, {
      token: room.tokens.annotator, json: { docId: hloId, from: top.from, to: top.to, kind: 'spill', body: 'the scores', author: { name: 'Ada' } },
    });
    expect(res.status).toBe(201);
    t.deps.rooms.get(room.id).doc.getText('notes').insert(0, '<script>x</script>\n- not a list');

    const e = (await (await t.call('GET', `/api/rooms/${room.id}/export.json`, { token: room.tokens.viewer })).json()) as RoomExport;
    expect(e.annotations[0]).toMatchObject({ instruction: top.producer, bytes: top.bytes, traffic: top.traffic, readers: top.consumers, figuresFrom: 'analysis' });
    expect(e.notes).toBe('<script>x</script>\n- not a list');
    expect(e.captures).toBeUndefined();
    // Loose documents are never paired into a mapping table.
    expect(e.mappings).toBeUndefined();
    const md = await (await t.call('GET', `/api/rooms/${room.id}/export.md`, { token: room.tokens.viewer })).text();
    expect(md).toContain('## Notes\n\n> &lt;script&gt;x&lt;/script&gt;\n> \\- not a list\n');
    expect(md).toContain(`· figures from the analysis · open`);
  });
});

describe('diffs in the room export', () => {
  const fixture = (name: string): string => readFileSync(new URL(`../../../test/fixtures/diff/${name}/hlo-opt.txt`, import.meta.url), 'utf8');
  /** Imports one dump folder holding `text` as module 0 of `jit_attention`'s optimized HLO. */
  async function importFolder(folder: string, text: string): Promise<number> {
    const form = new FormData();
    form.append('file', new Blob([text]), `${folder}/module_0000.jit_attention.cpu_after_optimizations.txt`);
    const res = await t.app.request(`/api/rooms/${room.id}/imports`, { method: 'POST', headers: { authorization: `Bearer ${room.tokens.owner}` }, body: form });
    return res.status;
  }

  it("diffs a module group's optimized HLO against the earlier import of the same module, in both forms", async () => {
    expect(await importFolder('naive', fixture('attention'))).toBe(201);
    expect(await importFolder('online', fixture('attention_online'))).toBe(201);
    const e = (await (await t.call('GET', `/api/rooms/${room.id}/export.json`, { token: room.tokens.viewer })).json()) as RoomExport;
    expect(e.diffs).toHaveLength(1);
    const x = e.diffs![0]!;
    expect([x.a.group, x.b.group]).toEqual(['module 0000 jit_attention · naive', 'module 0000 jit_attention · online']);
    const sxs = x.diff?.spills.filter((s) => s.a?.type.startsWith('f32[8192,8192]')).map((s) => [s.change, s.a?.name]);
    expect(sxs).toEqual([['disappeared', 'convert_exponential_fusion'], ['disappeared', 'convert_convert_fusion'], ['disappeared', 'dot_general.2']]);
    const md = await (await t.call('GET', `/api/rooms/${room.id}/export.md`, { token: room.tokens.viewer })).text();
    expect(md).toContain('## Diffs (1)\n\n### module 0000 jit\\_attention · naive → module 0000 jit\\_attention · online');
    expect(md).toContain('| disappeared | dot\\_general.2 f32\\[8192,8192\\]{1,0} (line 154) |');
  });

  it('leaves a room without two versions of one program undiffed', async () => {
    expect(await importFolder('naive', fixture('attention'))).toBe(201);
    const e = (await (await t.call('GET', `/api/rooms/${room.id}/export.json`, { token: room.tokens.viewer })).json()) as RoomExport;
    expect(e.diffs).toBeUndefined();
  });
});

describe('catalogues in the room export', () => {
  const fixture = (name: string, file: string): string => readFileSync(new URL(`../../../test/fixtures/diff/${name}/${file}`, import.meta.url), 'utf8');
  /** Imports one dump folder: the sharded MLP's jaxpr, StableHLO and optimized HLO as JAX and XLA name them. */
  async function importSharded(folder: string, name: string): Promise<number> {
    const form = new FormData();
    form.append('file', new Blob([fixture(name, 'jaxpr.txt')]), `${folder}/jax_000001_sharded_mlp.jaxpr.txt`);
    form.append('file', new Blob([fixture(name, 'stablehlo-debug.mlir')]), `${folder}/jax_ir0001_jit_sharded_mlp_compile.mlir`);
    form.append('file', new Blob([fixture(name, 'hlo-opt.txt')]), `${folder}/module_0000.jit_sharded_mlp.cpu_after_optimizations.txt`);
    const res = await t.app.request(`/api/rooms/${room.id}/imports`, { method: 'POST', headers: { authorization: `Bearer ${room.tokens.owner}` }, body: form });
    return res.status;
  }

  it('catalogues each module group in three layers, with its card, as JSON and inert Markdown', async () => {
    expect(await importSharded('plain', 'sharded')).toBe(201);
    expect(await importSharded('constrained', 'sharded_constraint')).toBe(201);
    const e = (await (await t.call('GET', `/api/rooms/${room.id}/export.json`, { token: room.tokens.viewer })).json()) as RoomExport;
    const groups = e.catalogues?.filter((c) => c.label.startsWith('module 0000 jit_sharded_mlp')) ?? [];
    expect(groups.map((c) => [c.label, Object.keys(c.documents)])).toEqual([
      ['module 0000 jit_sharded_mlp · plain', ['jaxpr', 'stablehlo', 'hlo-opt']],
      ['module 0000 jit_sharded_mlp · constrained', ['jaxpr', 'stablehlo', 'hlo-opt']],
    ]);
    const [plain, constrained] = groups;
    const summary = (c: typeof plain, category: string, label: string) => {
      const x = c?.entries.find((y) => y.category === category && y.label === label);
      return x && Object.fromEntries(Object.entries(x.layers).map(([l, o]) => [l, [o.count, o.bytes, o.sites.map((s) => s.line)]]));
    };
    // The constraint (jaxpr line 23, StableHLO line 24) and the all-gather XLA added for it (line 88), in the constrained group only.
    expect(summary(constrained, 'sharding', 'sharding-constraint')).toEqual({ jaxpr: [1, 16384, [23]], stablehlo: [1, 16384, [24]] });
    expect(summary(constrained, 'collective', 'all-gather')).toEqual({ 'hlo-opt': [1, 4096, [88]] });
    expect(summary(plain, 'sharding', 'sharding-constraint')).toBeUndefined();
    // Both carry the parameters' shardings as attributes, read from the stored texts.
    expect(summary(plain, 'sharding', '{devices=[4,1,2]<=[8] last_tile_dim_replicate}')).toEqual({ 'hlo-opt': [1, 2048, [62]] });
    expect(constrained?.withoutText).toBeUndefined();
    // The card: each layer's lines (the empty one after the last newline counted) and collectives, and lines against the jaxpr.
    expect(constrained?.card.layers.map((l) => [l.layer, l.lines, l.collectives])).toEqual([['jaxpr', 47, 0], ['stablehlo', 50, 0], ['hlo-opt', 94, 2]]);
    expect(constrained?.card.layers[2]?.linesRatio).toBeCloseTo(94 / 47, 6);

    const md = await (await t.call('GET', `/api/rooms/${room.id}/export.md`, { token: room.tokens.viewer })).text();
    expect(md).toContain('### Catalogue: module 0000 jit\\_sharded\\_mlp · constrained\n\nFrom jaxpr constrained/jax\\_000001\\_sharded\\_mlp.jaxpr.txt · StableHLO constrained/');
    expect(md).toContain('#### lower() vs compile()');
    expect(md).toContain('| collective | all-gather | 4,096 |');
    // A sharding's `<=` is dump text: written as entities, never raw.
    expect(md).toContain('| sharding | {devices=\\[4,1,2\\]&lt;=\\[8\\] last\\_tile\\_dim\\_replicate} | 2,048 |');
    expect(md).not.toMatch(/<=\[8\]/);
  });
});
