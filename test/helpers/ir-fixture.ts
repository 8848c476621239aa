import { readFileSync } from 'node:fs';

/** A real-JAX fixture dump, e.g. `fixture('mlp', 'jaxpr.txt')`. */
export function fixture(program: string, file: string): string {
  return readFileSync(new URL(`../fixtures/ir/${program}/${file}`, import.meta.url), 'utf8');
}
