import { OpCategory } from './types';

/**
 * An op's name read alike across layers: dialect prefix dropped, `_` as `-`, async halves named by
 * their start: `stablehlo.all_reduce`, `all-reduce-start` and `all-reduce` → `all-reduce`;
 * `all-reduce-done` → `all-reduce-done` (the catalogue counts each async op once, at its start).
 */
export function normalOp(op: string): string {
  const bare = op.replace(/^(stablehlo|mhlo|chlo|sdy|func)\./, (_, d: string) => (d === 'func' ? 'func-' : '')).replace(/_/g, '-');
  return bare.endsWith('-start') ? bare.slice(0, -'-start'.length) : bare;
}

/** jaxpr primitives and HLO/StableHLO collectives, by the HLO opcode they lower to. */
const COLLECTIVES: Readonly<Record<string, string>> = {
  'all-reduce': 'all-reduce',
  psum: 'all-reduce',
  pmax: 'all-reduce',
  pmin: 'all-reduce',
  'all-gather': 'all-gather',
  'reduce-scatter': 'reduce-scatter',
  'psum-scatter': 'reduce-scatter',
  'all-to-all': 'all-to-all',
  'collective-permute': 'collective-permute',
  ppermute: 'collective-permute',
  'collective-broadcast': 'collective-broadcast',
};

/** The collective a (normalized) op is, e.g. `psum` → `all-reduce`; `undefined` for others. */
export function collectiveOf(op: string): string | undefined {
  return COLLECTIVES[op];
}

/** Host transfers by (normalized) op: send/recv and infeed/outfeed, the callbacks that reach the host. */
const HOST = new Set(['send', 'recv', 'infeed', 'outfeed', 'io-callback', 'pure-callback']);
export const isHostOp = (op: string): boolean => HOST.has(op);

/** Custom-call targets that move data between device and host memory, or place it there (host offloading). */
const HOST_TARGETS = new Set(['MoveToHost', 'MoveToDevice', 'annotate_device_placement']);
export const isHostTarget = (target: string): boolean => HOST_TARGETS.has(target);

/** Custom-call targets GSPMD and Shardy use to carry shardings, not to run code. */
const SHARDING_TARGETS = new Set(['Sharding', 'SPMDFullToShardShape', 'SPMDShardToFullShape', 'ShardBarrierFrom', 'ShardBarrierTo']);
export const isShardingTarget = (target: string): boolean => SHARDING_TARGETS.has(target);

/** Ops that constrain or switch sharding: `sharding_constraint`, Shardy's constraint and manual region. */
const SHARDING = new Set(['sharding-constraint', 'manual-computation', 'shard-map', 'reshard']);
export const isShardingOp = (op: string): boolean => SHARDING.has(op);

export const isCastOp = (op: string): boolean => op === 'convert' || op === 'convert-element-type';
export const isBarrierOp = (op: string): boolean => op === 'opt-barrier' || op === 'optimization-barrier';
export const isCustomCallOp = (op: string): boolean => op === 'custom-call' || op === 'pallas-call';
/** jaxpr's checkpoint primitive, under each of its names. */
export const isRematOp = (op: string): boolean => op === 'remat2' || op === 'checkpoint' || op === 'remat';

const MATMUL = new Set(['dot', 'dot-general', 'convolution', 'conv-general-dilated', 'einsum', 'ragged-dot']);
const REDUCE = new Set(['reduce', 'reduce-sum', 'reduce-max', 'reduce-min', 'reduce-prod', 'reduce-and', 'reduce-or', 'argmax', 'argmin', 'reduce-window', 'cumsum', 'cumprod', 'cummax', 'cumlogsumexp', 'sort']);
const MOVEMENT = new Set([
  'reshape', 'transpose', 'broadcast', 'broadcast-in-dim', 'slice', 'dynamic-slice', 'dynamic-update-slice', 'concatenate',
  'pad', 'gather', 'scatter', 'scatter-add', 'copy', 'copy-start', 'copy-done', 'bitcast', 'get-tuple-element', 'tuple', 'squeeze',
  'expand-dims', 'rev', 'reverse', 'select-and-scatter', 'copy-p', 'real-dynamic-slice', 'dynamic-broadcast-in-dim',
]);
const CONTROL = new Set([
  'while', 'conditional', 'call', 'func-call', 'func-return', 'return', 'scan', 'cond', 'pjit', 'jit', 'closed-call', 'core-call', 'remat2',
  'checkpoint', 'custom-jvp-call', 'custom-vjp-call', 'custom-vjp-call-jaxpr', 'case', 'if', 'async', 'async-done', 'fusion',
]);
const ELEMENTWISE = new Set([
  'add', 'add-any', 'sub', 'subtract', 'mul', 'multiply', 'div', 'divide', 'rem', 'remainder', 'max', 'maximum', 'min', 'minimum',
  'neg', 'negate', 'abs', 'sign', 'exp', 'exponential', 'exp2', 'log', 'log1p', 'log-plus-one', 'expm1', 'exponential-minus-one',
  'tanh', 'logistic', 'sin', 'sine', 'cos', 'cosine', 'tan', 'atan2', 'sqrt', 'rsqrt', 'cbrt', 'pow', 'power', 'integer-pow', 'square',
  'erf', 'erf-inv', 'floor', 'ceil', 'round', 'round-nearest-even', 'round-nearest-afz', 'clamp', 'select', 'select-n', 'compare',
  'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'and', 'or', 'not', 'xor', 'shift-left', 'shift-right-logical', 'shift-right-arithmetic',
  'is-finite', 'stop-gradient', 'real', 'imag', 'complex', 'conj', 'population-count', 'clz', 'count-leading-zeros',
]);
const CONSTANT = new Set(['constant', 'parameter', 'iota', 'broadcasted-iota', 'rng-bit-generator', 'rng-get-and-update-state']);

/** The kind of op a card counts a (normalized) op as. */
export function opCategoryOf(op: string): OpCategory {
  if (MATMUL.has(op)) return OpCategory.matmul;
  if (REDUCE.has(op)) return OpCategory.reduce;
  if (MOVEMENT.has(op)) return OpCategory.movement;
  if (CONTROL.has(op)) return OpCategory.control;
  if (CONSTANT.has(op)) return OpCategory.constant;
  if (isCastOp(op) || op === 'bitcast-convert' || op === 'bitcast-convert-type' || op === 'reduce-precision') return OpCategory.cast;
  if (collectiveOf(op) || op.endsWith('-done') && collectiveOf(op.slice(0, -'-done'.length))) return OpCategory.collective;
  if (isCustomCallOp(op)) return OpCategory.customCall;
  if (ELEMENTWISE.has(op)) return OpCategory.elementwise;
  return OpCategory.other;
}

/** Name-stack components that mark a checkpointed region, and the recomputation inside it. */
const RECOMPUTED = /(^|[/(;])rematted_computation($|[/);])/;
const CHECKPOINTED = /(^|[/(;])(checkpoint|remat2?)($|[/);])/;

/** The remat label an op's name stack gives it: `recomputed`, `checkpointed`, or none. */
export function rematOf(opName: string | undefined): 'recomputed' | 'checkpointed' | undefined {
  if (!opName) return undefined;
  if (RECOMPUTED.test(opName)) return 'recomputed';
  if (CHECKPOINTED.test(opName)) return 'checkpointed';
  return undefined;
}
