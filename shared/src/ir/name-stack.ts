/**
 * A name stack as JAX records it (`jit(train)/transpose(jvp())/while/body/closed_call/checkpoint/
 * btd,de->bte/dot_general`), read for joining layers: the transforms it runs under, the user's
 * scopes, and the primitive at its end. Components that only say how the program was lowered
 * (`while`, `body`, `closed_call`, `checkpoint`…) are dropped, so a jaxpr equation and the HLO
 * instruction it became read alike.
 */
export interface NameStack {
  /** Transforms outermost first, joined by `,`: `transpose,jvp`; empty under none. */
  readonly transforms: string;
  /** User scopes and calls outermost first, e.g. `['jit(train)', 'btd,de->bte']`. */
  readonly scopes: readonly string[];
  /** The last component: the primitive, e.g. `dot_general`. */
  readonly leaf: string;
}

/** The transforms JAX writes around the scopes they apply to: `jvp(…)`, `transpose(jvp(…))`, `vmap(…)`. */
const TRANSFORM = /^(jvp|transpose|vmap|pmap|linearize)\((.*)\)$/s;

/** Components that come from lowering control flow and calls, not from the user's program. */
const LOWERING = new Set([
  'while', 'body', 'cond', 'closed_call', 'core_call', 'checkpoint', 'remat', 'remat2', 'scan', 'switch', 'case',
  'custom_jvp_call', 'custom_vjp_call', 'custom_vjp_call_jaxpr', 'shard_map', 'xla_pmap',
]);

/** `branch_0_fun`, the branches of a lowered `cond`. */
const BRANCH = /^branch_\d+_fun$/;

/** Reads `opName` (see `NameStack`). */
export function readNameStack(opName: string): NameStack {
  const parts = splitTop(opName);
  const leaf = parts.pop() ?? '';
  const transforms: string[] = [];
  const scopes: string[] = [];
  for (const p of parts) component(p, transforms, scopes);
  return { transforms: transforms.join(','), scopes, leaf };
}

/** One component: transforms peeled off (their insides read as components in turn), lowering dropped. */
function component(text: string, transforms: string[], scopes: string[]): void {
  const t = TRANSFORM.exec(text);
  if (t) {
    transforms.push(t[1] as string);
    for (const inner of splitTop(t[2] ?? '')) component(inner, transforms, scopes);
    return;
  }
  if (text === '' || LOWERING.has(text) || BRANCH.test(text)) return;
  scopes.push(text);
}

/** Splits on `/` outside parentheses: `transpose(jvp(a/b))/c` → `transpose(jvp(a/b))`, `c`. */
function splitTop(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 40) depth++;
    else if (c === 41) depth = Math.max(0, depth - 1);
    else if (c === 47 && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}
