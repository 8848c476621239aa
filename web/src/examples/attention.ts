import jaxpr from './attention/jaxpr.txt?raw';
import stablehlo from './attention/stablehlo-debug.mlir?raw';
import hloOpt from './attention/hlo-opt.txt?raw';

/**
 * The bundled capture of naive attention at S=8192 (real JAX output, copied from the IR fixtures):
 * what "Open the attention example" adds to an empty room.
 */
export const ATTENTION_EXAMPLE: readonly { title: string; text: string }[] = [
  { title: 'attention.jaxpr', text: jaxpr },
  { title: 'attention.shlo', text: stablehlo },
  { title: 'attention.hlo-opt', text: hloOpt },
];
