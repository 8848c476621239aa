import type { ValueType } from '../types';
import type { HloCalls, HloComputation, HloInstruction } from './ast';

/**
 * A computation kept for the spill pass in a few flat arrays instead of one object per
 * instruction (and one operand array each): about a third of the memory, and nothing for the
 * collector to trace but a handful of arrays. Names, opcodes, types and operand names are the
 * parse tree's own shared strings and objects; metadata is dropped (the spill pass never reads it).
 */
export class CompactComputation {
  readonly name: string;
  readonly isEntry: boolean;
  readonly from: number;
  readonly to: number;
  /** Per instruction: name, opcode, type, type text (stride 4). */
  private readonly refs: unknown[];
  /** Per instruction: from, to, number, 1 when ROOT (stride 4). */
  private readonly ints: Int32Array;
  private readonly bytes: Float64Array;
  /** Operand names of all instructions in order; instruction i's are `[starts[i], starts[i + 1])`. */
  private readonly operands: string[];
  private readonly starts: Int32Array;
  /** Instruction index → called computations and dot dimensions, for the few that have them. */
  private readonly attrs = new Map<number, HloCalls>();

  constructor(c: HloComputation) {
    const list = c.instructions;
    const n = list.length;
    this.name = c.name;
    this.isEntry = c.isEntry;
    this.from = c.from;
    this.to = c.to;
    this.refs = new Array<unknown>(n * 4);
    this.ints = new Int32Array(n * 4);
    this.bytes = new Float64Array(n);
    this.starts = new Int32Array(n + 1);
    let operandCount = 0;
    for (let i = 0; i < n; i++) operandCount += (list[i] as HloInstruction).operands.length;
    this.operands = new Array<string>(operandCount);
    let o = 0;
    for (let i = 0; i < n; i++) {
      const ins = list[i] as HloInstruction;
      this.refs[i * 4] = ins.name;
      this.refs[i * 4 + 1] = ins.opcode;
      this.refs[i * 4 + 2] = ins.type;
      this.refs[i * 4 + 3] = ins.typeText;
      this.ints[i * 4] = ins.from;
      this.ints[i * 4 + 1] = ins.to;
      this.ints[i * 4 + 2] = ins.number;
      this.ints[i * 4 + 3] = ins.isRoot ? 1 : 0;
      this.bytes[i] = ins.bytes;
      this.starts[i] = o;
      for (const name of ins.operands) this.operands[o++] = name;
      if (ins.attrs) this.attrs.set(i, ins.attrs);
    }
    this.starts[n] = o;
  }

  /** The computation again as parse-tree nodes (metadata left out), for the spill pass. */
  expand(): HloComputation {
    const n = this.bytes.length;
    const instructions = new Array<HloInstruction>(n);
    for (let i = 0; i < n; i++) {
      instructions[i] = {
        name: this.refs[i * 4] as string,
        isRoot: this.ints[i * 4 + 3] === 1,
        opcode: this.refs[i * 4 + 1] as string,
        type: this.refs[i * 4 + 2] as ValueType,
        typeText: this.refs[i * 4 + 3] as string,
        bytes: this.bytes[i] as number,
        operands: this.operands.slice(this.starts[i], this.starts[i + 1]),
        number: this.ints[i * 4 + 2] as number,
        metadata: undefined,
        attrs: this.attrs.get(i),
        from: this.ints[i * 4] as number,
        to: this.ints[i * 4 + 1] as number,
      };
    }
    return { name: this.name, isEntry: this.isEntry, instructions, from: this.from, to: this.to };
  }
}
