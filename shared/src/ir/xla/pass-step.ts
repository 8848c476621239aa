import type { CrossLayerKey, ValueInfo } from '../types';
import type { PassStep } from './types';

/** Opcodes that produce no new bytes: they name or pass through values other instructions made. */
const NO_BYTES = new Set(['parameter', 'bitcast', 'tuple', 'get-tuple-element']);
const COPIES = new Set(['copy', 'copy-start']);

/**
 * The counts of one HLO dump a pass sequence compares, from its index (`values` and `keys`, one
 * per instruction in the same order, as the HLO indexer writes them): every instruction, the fusion
 * instructions, the copies outside fused computations, and the bytes the unfused instructions
 * produce (see `PassStepCounts`).
 */
export function passStepOf(values: readonly ValueInfo[], keys: readonly CrossLayerKey[]): PassStep {
  const fusionNames: string[] = [];
  const copyNames: string[] = [];
  let bytes = 0;
  const n = Math.min(values.length, keys.length);
  for (let i = 0; i < n; i++) {
    const k = keys[i] as CrossLayerKey;
    if (k.fusion !== undefined) continue;
    if (k.op === 'fusion') fusionNames.push(k.name);
    else if (COPIES.has(k.op)) copyNames.push(k.name);
    if (!NO_BYTES.has(k.op)) bytes += (values[i] as ValueInfo).bytes;
  }
  return { instructions: values.length, fusions: fusionNames.length, copies: copyNames.length, bytes, fusionNames, copyNames };
}
