import { valuesOf, type AnalysisViews, type ValueInfo } from '@seam/shared/ir';

/**
 * An optimized HLO's instructions by name, for linking the values XLA's plan names to their lines:
 * an instruction outside fused computations wins over one of the same name inside one (names repeat
 * in fused computations).
 */
export function hloValuesByName(views: AnalysisViews): Map<string, ValueInfo> {
  const fused = new Set(views.index.outline.flatMap((e) => [e, ...(e.children ?? [])]).filter((e) => e.kind === 'fusion').map((e) => e.name));
  const out = new Map<string, ValueInfo>();
  for (const x of valuesOf(views.index.values)) {
    const had = out.get(x.name);
    if (!had || (fused.has(had.scope) && !fused.has(x.scope))) out.set(x.name, x);
  }
  return out;
}
