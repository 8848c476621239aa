import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { layerGroups } from '../model/layer-groups';
import type { DocumentMeta } from '../model/document';
import { planImport, type FilePlan } from './module-groups';
import { importPathProblem, normalizeImportPath } from './paths';

/**
 * Names as JAX 0.10.2 on CPU wrote them for two jit functions `f` and `train_step` (and the
 * helpers jnp.ones compiles first) with `XLA_FLAGS=--xla_dump_to=xla --xla_dump_hlo_as_text
 * --xla_dump_hlo_as_proto`, `JAX_DUMP_IR_TO=jax` and `JAX_DUMP_IR_MODES=stablehlo,jaxpr`.
 */
const REAL = [
  'jax/jax_000001_broadcast_in_dim.jaxpr.txt',
  'jax/jax_000002_broadcast_in_dim.jaxpr.txt',
  'jax/jax_000003_f.jaxpr.txt',
  'jax/jax_000004_train_step.jaxpr.txt',
  'jax/jax_ir0001_jit_broadcast_in_dim_compile.mlir',
  'jax/jax_ir0002_jit_broadcast_in_dim_compile.mlir',
  'jax/jax_ir0003_jit_f_compile.mlir',
  'jax/jax_ir0004_jit_train_step_compile.mlir',
  'xla/module_0002.jit_broadcast_in_dim.before_optimizations.txt',
  'xla/module_0004.jit_broadcast_in_dim.before_optimizations.txt',
  'xla/module_0006.jit_f.before_optimizations.hlo.pb',
  'xla/module_0006.jit_f.before_optimizations.txt',
  'xla/module_0006.jit_f.cpu_after_optimizations-buffer-assignment-values.txt',
  'xla/module_0006.jit_f.cpu_after_optimizations-buffer-assignment.txt',
  'xla/module_0006.jit_f.cpu_after_optimizations-live-range.txt',
  'xla/module_0006.jit_f.cpu_after_optimizations-memory-usage-report.pb',
  'xla/module_0006.jit_f.cpu_after_optimizations-memory-usage-report.txt',
  'xla/module_0006.jit_f.cpu_after_optimizations.hlo.pb',
  'xla/module_0006.jit_f.cpu_after_optimizations.txt',
  'xla/module_0006.jit_f.debug_options',
  'xla/module_0006.jit_f.obj-file.tanh_reduce_fusion_kernel_module.o',
  'xla/module_0006.jit_f.tanh_reduce_fusion_kernel_module.ir-no-opt.ll',
  'xla/module_0006.jit_f.tanh_reduce_fusion_kernel_module.ir-with-opt.ll',
  'xla/module_0006.jit_f/compile_options.pb',
  'xla/module_0006.jit_f/module.mlir',
  'xla/module_0006.jit_f/topology.pb',
  'xla/module_0008.jit_train_step.before_optimizations.dot',
  'xla/module_0008.jit_train_step.0003.SubbytePacker_pipeline.after_pipeline-start.before_sub-byte-size-setter.txt',
  'xla/module_0008.jit_train_step.cpu_after_optimizations.txt',
  'xla/module_0008.jit_train_step.0000.async-collective.after_pipeline-start.before_async-collective-replacer.txt',
  'profile/plugins/profile/2026_12_01/host.xplane.pb',
];

const plan = (paths: readonly string[]) => new Map(planImport(paths).map((p) => [p.path, p]));
const doc = (p: FilePlan | undefined) => (p?.what === 'document' ? p : undefined);

describe('planImport', () => {
  it("groups a real dump folder's files by module, JAX's files with the module of their name in order", () => {
    const plans = plan(REAL);
    const f = doc(plans.get('xla/module_0006.jit_f.cpu_after_optimizations.txt'))!;
    expect(f.kind).toBe('hlo-opt');
    expect(f.module).toMatchObject({ name: 'jit_f', number: 6, path: 'xla/module_0006.jit_f.cpu_after_optimizations.txt' });
    const group = (path: string) => doc(plans.get(path))?.module?.groupId;
    const id = f.module!.groupId;
    for (const p of ['xla/module_0006.jit_f.before_optimizations.txt', 'xla/module_0006.jit_f.cpu_after_optimizations-buffer-assignment.txt', 'xla/module_0006.jit_f.cpu_after_optimizations-memory-usage-report.txt', 'xla/module_0006.jit_f.tanh_reduce_fusion_kernel_module.ir-no-opt.ll', 'xla/module_0006.jit_f/module.mlir', 'jax/jax_ir0003_jit_f_compile.mlir', 'jax/jax_000003_f.jaxpr.txt']) {
      expect(group(p), p).toBe(id);
    }
    expect(doc(plans.get('xla/module_0006.jit_f.before_optimizations.txt'))!.kind).toBe('hlo');
    expect(doc(plans.get('xla/module_0006.jit_f.cpu_after_optimizations-buffer-assignment.txt'))!.kind).toBe('buffer-assignment');
    expect(doc(plans.get('xla/module_0006.jit_f.cpu_after_optimizations-memory-usage-report.txt'))!.kind).toBe('memory-report');
    expect(doc(plans.get('jax/jax_000003_f.jaxpr.txt'))!.kind).toBe('jaxpr');
    expect(doc(plans.get('jax/jax_ir0003_jit_f_compile.mlir'))!.kind).toBe('stablehlo');
    // two modules of one name: the first JAX file goes with the lower module number
    expect(group('jax/jax_ir0001_jit_broadcast_in_dim_compile.mlir')).toBe(group('xla/module_0002.jit_broadcast_in_dim.before_optimizations.txt'));
    expect(group('jax/jax_ir0002_jit_broadcast_in_dim_compile.mlir')).toBe(group('xla/module_0004.jit_broadcast_in_dim.before_optimizations.txt'));
    expect(group('jax/jax_000002_broadcast_in_dim.jaxpr.txt')).toBe(group('xla/module_0004.jit_broadcast_in_dim.before_optimizations.txt'));
    expect(group('xla/module_0002.jit_broadcast_in_dim.before_optimizations.txt')).not.toBe(group('xla/module_0004.jit_broadcast_in_dim.before_optimizations.txt'));
    expect(group('xla/module_0008.jit_train_step.cpu_after_optimizations.txt')).not.toBe(id);
  });

  it('reads per-pass dumps as steps with their pipeline and pass, their kind left to the content', () => {
    const p = doc(plan(REAL).get('xla/module_0008.jit_train_step.0003.SubbytePacker_pipeline.after_pipeline-start.before_sub-byte-size-setter.txt'))!;
    expect(p.kind).toBeUndefined();
    expect(p.module?.pass).toEqual({ index: 3, pipeline: 'SubbytePacker_pipeline', name: 'pipeline-start', when: 'after' });
    const copies = doc(planImport(['module_0000.jit_mlp.0030.copy-insertion.after_adding_special-case_copies.txt'])[0])!;
    expect(copies.module?.pass).toEqual({ index: 30, pipeline: 'copy-insertion', name: 'adding_special-case_copies', when: 'after' });
  });

  it('skips binary protos, object files and graph renderings with a reason, and sends xplane traces to the trace ingest', () => {
    const plans = plan(REAL);
    for (const p of ['xla/module_0006.jit_f.before_optimizations.hlo.pb', 'xla/module_0006.jit_f/topology.pb', 'xla/module_0006.jit_f.obj-file.tanh_reduce_fusion_kernel_module.o', 'xla/module_0008.jit_train_step.before_optimizations.dot']) {
      const s = plans.get(p)!;
      expect(s.what, p).toBe('skip');
      expect(s.what === 'skip' && s.reason.length > 10).toBe(true);
    }
    expect(plans.get('profile/plugins/profile/2026_12_01/host.xplane.pb')?.what).toBe('trace');
    expect(planImport(['.DS_Store', '__MACOSX/a.txt']).map((p) => p.what)).toEqual(['skip', 'skip']);
  });

  it('gives the same module the same group id in a later import, and joins JAX files pushed later to a module the room holds', () => {
    const first = doc(planImport(['d/module_0001.jit_g.before_optimizations.txt'])[0])!.module!;
    const later = doc(planImport(['d/module_0001.jit_g.cpu_after_optimizations.txt'])[0])!.module!;
    expect(later.groupId).toBe(first.groupId);
    expect(doc(planImport(['e/module_0001.jit_g.cpu_after_optimizations.txt'])[0])!.module!.groupId).not.toBe(first.groupId);
    const jax = doc(planImport(['j/jax_ir0000_jit_g_compile.mlir'], [first])[0])!.module!;
    expect(jax.groupId).toBe(first.groupId);
    const alone = planImport(['j/jax_ir0000_jit_h_compile.mlir', 'j/jax_000000_h.jaxpr.txt']).map((p) => doc(p)!.module!);
    expect(alone[0]!.groupId).toBe(alone[1]!.groupId);
    expect(alone[0]!.number).toBeUndefined();
  });

  it("groups the other engineers' real fixture folders into one module each, labelled as the list labels them", () => {
    const root = new URL('../../../test/fixtures/xla-dump/', import.meta.url);
    let checked = 0;
    for (const folder of readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name)) {
      const names = readdirSync(new URL(`${folder}/`, root));
      // Folders of XLA's own files only (a folder of corpus files is not a dump folder).
      if (names.length === 0 || !names.every((f) => f.startsWith('module_'))) continue;
      const paths = names.map((f) => `${folder}/${f}`);
      const docs: DocumentMeta[] = planImport(paths).map((p, i) => ({ id: String(i), title: p.path, kind: p.what === 'document' ? (p.kind ?? 'text') : 'text', bytes: 0, sha256: '', createdAt: 0, ...(p.what === 'document' && p.module ? { module: p.module } : {}) }));
      const groups = layerGroups(docs);
      expect(groups.map((g) => g.kind), folder).toEqual(['module']);
      expect(groups[0]!.label).toMatch(/^module \d{4} jit_\w+$/);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(3);
  });
});

/**
 * One archive of two dump folders of the same program (test/fixtures/diff/sharded and
 * sharded_constraint), each file under the name JAX 0.10.2 and XLA:CPU gave it
 * (`--xla_dump_to=xla`, `JAX_DUMP_IR_TO=jax`): the same names, numbers and counters in both.
 */
const TWO_FOLDERS = [
  'sharded/jax/jax_000003_sharded_mlp.jaxpr.txt',
  'sharded/jax/jax_ir0003_jit_sharded_mlp_compile.mlir',
  'sharded/meta.json',
  'sharded/program.py',
  'sharded/xla/module_0006.jit_sharded_mlp.cpu_after_optimizations.txt',
  'sharded_constraint/jax/jax_000003_sharded_mlp.jaxpr.txt',
  'sharded_constraint/jax/jax_ir0003_jit_sharded_mlp_compile.mlir',
  'sharded_constraint/meta.json',
  'sharded_constraint/program.py',
  'sharded_constraint/xla/module_0006.jit_sharded_mlp.cpu_after_optimizations.txt',
];

/** What JAX 0.10.2 on CPU wrote for the sharded program run once (the helpers jnp.ones and the output's slicing compile too), text layers only. */
const ONE_RUN = [
  ...['000000_convert_element_type', '000001_broadcast_in_dim', '000002_broadcast_in_dim', '000003_sharded_mlp', '000004__multi_slice', '000005__multi_slice'].map((n) => `jax/jax_${n}.jaxpr.txt`),
  ...['0000_jit_convert_element_type', '0001_jit_broadcast_in_dim', '0002_jit_broadcast_in_dim', '0003_jit_sharded_mlp', '0004_jit__multi_slice', '0005_jit__multi_slice'].map((n) => `jax/jax_ir${n}_compile.mlir`),
  ...['0000.jit_convert_element_type', '0002.jit_broadcast_in_dim', '0004.jit_broadcast_in_dim', '0006.jit_sharded_mlp', '0008.jit__multi_slice', '0010.jit__multi_slice'].flatMap((m) => [`xla/module_${m}.before_optimizations.txt`, `xla/module_${m}.cpu_after_optimizations.txt`]),
];

/** A plan's documents as the room lists them, for `layerGroups`. */
const metas = (plans: readonly FilePlan[]): DocumentMeta[] => plans.map((p, i) => ({ id: String(i), title: p.path, kind: p.what === 'document' ? (p.kind ?? 'text') : 'text', bytes: 0, sha256: '', createdAt: 0, ...(p.what === 'document' && p.module ? { module: p.module } : {}) }));

describe('planImport of two dump folders of one program', () => {
  it('gives each folder its own module group holding its own jaxpr, StableHLO and optimized HLO', () => {
    const plans = plan(TWO_FOLDERS);
    const group = (path: string) => doc(plans.get(path))?.module?.groupId;
    for (const v of ['sharded', 'sharded_constraint']) {
      const id = group(`${v}/xla/module_0006.jit_sharded_mlp.cpu_after_optimizations.txt`);
      expect(id, v).toBeDefined();
      expect(group(`${v}/jax/jax_000003_sharded_mlp.jaxpr.txt`), v).toBe(id);
      expect(group(`${v}/jax/jax_ir0003_jit_sharded_mlp_compile.mlir`), v).toBe(id);
    }
    expect(group('sharded/xla/module_0006.jit_sharded_mlp.cpu_after_optimizations.txt')).not.toBe(group('sharded_constraint/xla/module_0006.jit_sharded_mlp.cpu_after_optimizations.txt'));
    const groups = layerGroups(metas(planImport(TWO_FOLDERS))).filter((g) => g.kind === 'module');
    expect(groups.map((g) => [g.label, g.docs.map((d) => d.title)])).toEqual([
      ['module 0006 jit_sharded_mlp · sharded/jax', ['sharded/jax/jax_000003_sharded_mlp.jaxpr.txt', 'sharded/jax/jax_ir0003_jit_sharded_mlp_compile.mlir', 'sharded/xla/module_0006.jit_sharded_mlp.cpu_after_optimizations.txt']],
      ['module 0006 jit_sharded_mlp · sharded_constraint/jax', ['sharded_constraint/jax/jax_000003_sharded_mlp.jaxpr.txt', 'sharded_constraint/jax/jax_ir0003_jit_sharded_mlp_compile.mlir', 'sharded_constraint/xla/module_0006.jit_sharded_mlp.cpu_after_optimizations.txt']],
    ]);
  });

  it('pairs JAX files with modules in order within each folder, whether JAX and XLA wrote into sub-folders or into one', () => {
    for (const layout of ['nested', 'flat'] as const) {
      const at = (v: string, name: string) => (layout === 'nested' ? `${v}/${name}` : `${v}/${name.slice(name.indexOf('/') + 1)}`);
      const paths = ['sharded', 'sharded_constraint'].flatMap((v) => ONE_RUN.map((n) => at(v, n)));
      const plans = plan(paths);
      const group = (path: string) => doc(plans.get(path))?.module?.groupId;
      const ids = new Set<string | undefined>();
      for (const v of ['sharded', 'sharded_constraint']) {
        for (const [jax, module] of [['0000_jit_convert_element_type', '0000.jit_convert_element_type'], ['0001_jit_broadcast_in_dim', '0002.jit_broadcast_in_dim'], ['0002_jit_broadcast_in_dim', '0004.jit_broadcast_in_dim'], ['0003_jit_sharded_mlp', '0006.jit_sharded_mlp'], ['0004_jit__multi_slice', '0008.jit__multi_slice'], ['0005_jit__multi_slice', '0010.jit__multi_slice']] as const) {
          const id = group(at(v, `xla/module_${module}.cpu_after_optimizations.txt`));
          expect(group(at(v, `jax/jax_ir${jax}_compile.mlir`)), `${layout} ${v} ${jax}`).toBe(id);
          expect(group(at(v, `xla/module_${module}.before_optimizations.txt`)), `${layout} ${v} ${module}`).toBe(id);
          ids.add(id);
        }
        expect(group(at(v, 'jax/jax_000003_sharded_mlp.jaxpr.txt'))).toBe(group(at(v, 'xla/module_0006.jit_sharded_mlp.cpu_after_optimizations.txt')));
      }
      expect(ids.size, layout).toBe(12);
    }
  });

  it("joins JAX files pushed later to the module of their own folder among the room's groups of that name", () => {
    const known = planImport(TWO_FOLDERS.filter((p) => p.includes('/xla/'))).map((p) => doc(p)!.module!);
    const later = planImport(TWO_FOLDERS.filter((p) => p.includes('/jax/')), known);
    expect(later).toHaveLength(4);
    for (const p of later) {
      const folder = p.path.slice(0, p.path.indexOf('/'));
      expect(doc(p)!.module!.groupId, p.path).toBe(known.find((m) => m.path.startsWith(`${folder}/`))!.groupId);
    }
  });
});

describe('importPathProblem', () => {
  it('refuses paths that leave the folder or are not plain relative names', () => {
    for (const bad of ['', '/etc/passwd', '../x.txt', 'a/../../x.txt', 'a\\..\\x.txt', 'C:/x.txt', 'c:x.txt', 'a\u0000b.txt', 'a\nb.txt', '.', './', 'x'.repeat(1025)]) {
      expect(importPathProblem(bad), JSON.stringify(bad)).not.toBeNull();
    }
    for (const good of ['a.txt', 'dumps/module_0000.jit_f.before_optimizations.txt', './a/b.txt', 'a..b.txt', 'a\\b.txt']) expect(importPathProblem(good), good).toBeNull();
    expect(normalizeImportPath('./a//b\\c.txt')).toBe('a/b/c.txt');
  });
});
