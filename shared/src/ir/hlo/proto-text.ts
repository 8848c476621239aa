import { arrayBytes } from '../shape';
import type { ArrayType, ValueType } from '../types';
import type { HloComputation, HloInstruction, HloModule } from './ast';
import { Ch, type Scanner } from './scanner';
import { emptyStackFrames } from './stack-frames';

/** One field of protobuf text format: `name: value` or `name { fields }`. */
interface Field {
  readonly key: string;
  readonly value?: string;
  readonly fields?: Field[];
  readonly from: number;
  readonly to: number;
}

/**
 * Reads an `HloModuleProto` printed in protobuf text format (`hlo_module { name: "main"
 * computations { instructions { name: "Arg_0.1" opcode: "parameter" shape { … } } } }`), which
 * XLA's tools accept beside HLO text. The cursor is at `hlo_module`. Operand names come from
 * `operand_ids`; shapes from `element_type` and `dimensions`.
 */
export function parseProtoModule(s: Scanner): HloModule {
  const from = s.pos;
  const [top] = parseFields(s, 1);
  const fields = top?.fields ?? [];
  const entryName = str(fields, 'entry_computation_name');
  const computations: HloComputation[] = [];
  for (const c of fields) {
    if (c.key !== 'computations' || !c.fields) continue;
    const name = str(c.fields, 'name') ?? '';
    const instrFields = c.fields.filter((f) => f.key === 'instructions' && f.fields);
    const names = new Map<string, string>();
    for (const i of instrFields) names.set(str(i.fields ?? [], 'id') ?? '', str(i.fields ?? [], 'name') ?? '');
    const rootId = str(c.fields, 'root_id');
    const instructions = instrFields.map((i) => toInstruction(i, names, rootId));
    computations.push({ name, isEntry: name === entryName, instructions, from: c.from, to: c.to });
  }
  return { name: str(fields, 'name') ?? '', hasHeader: true, isScheduled: false, computations, stackFrames: emptyStackFrames(), from, to: s.pos };
}

function toInstruction(f: Field, names: Map<string, string>, rootId: string | undefined): HloInstruction {
  const fields = f.fields ?? [];
  const shapeField = fields.find((x) => x.key === 'shape');
  const type = shapeField ? toType(shapeField) : { tuple: [] };
  const operands = fields.filter((x) => x.key === 'operand_ids').map((x) => names.get(x.value ?? '') ?? '').filter((n) => n);
  const meta = fields.find((x) => x.key === 'metadata')?.fields ?? [];
  const opName = str(meta, 'op_name');
  const sourceFile = str(meta, 'source_file');
  const sourceLine = Number(str(meta, 'source_line') ?? NaN);
  const opcode = str(fields, 'opcode') ?? '';
  return {
    name: str(fields, 'name') ?? '', isRoot: rootId !== undefined && str(fields, 'id') === rootId, opcode,
    type, typeText: '', bytes: bytesOf(type), operands, number: Number(str(fields, 'parameter_number') ?? str(fields, 'tuple_index') ?? -1),
    metadata: opName || sourceFile ? { opName, sourceFile, sourceLine: Number.isFinite(sourceLine) ? sourceLine : undefined } : undefined,
    attrs: undefined, from: f.from, to: f.to,
  };
}

function toType(f: Field): ValueType {
  const fields = f.fields ?? [];
  const et = (str(fields, 'element_type') ?? '').toLowerCase();
  if (et === 'tuple') return { tuple: fields.filter((x) => x.key === 'tuple_shapes').map(toType) };
  const dims = fields.filter((x) => x.key === 'dimensions').map((x) => Number(x.value));
  return { dtype: et, dims } satisfies ArrayType;
}

function bytesOf(t: ValueType): number {
  if ('tuple' in t) return t.tuple.reduce((a, x) => a + bytesOf(x), 0);
  return arrayBytes(t.dtype, t.dims);
}

function str(fields: readonly Field[], key: string): string | undefined {
  return fields.find((f) => f.key === key)?.value;
}

/** fields := (name (`:` scalar | `:`? `{` fields `}`))* — stops at `}` or after `limit` top-level fields. */
function parseFields(s: Scanner, limit = Infinity): Field[] {
  const out: Field[] = [];
  while (out.length < limit) {
    s.skipTrivia();
    if (s.peek() === Ch.hash) {
      s.skipLine();
      continue;
    }
    const from = s.pos;
    const key = s.name();
    if (!key) return out;
    s.skipTrivia();
    const colon = s.eat(Ch.colon);
    s.skipTrivia();
    if (s.eat(Ch.lbrace)) {
      const fields = parseFields(s);
      s.skipTrivia();
      if (!s.eat(Ch.rbrace)) s.error(s.pos, s.pos + 1, `expected '}' to close '${key}'`);
      out.push({ key, fields, from, to: s.pos });
    } else if (colon && s.peek() === Ch.quote) {
      out.push({ key, value: s.string(), from, to: s.pos });
    } else if (colon) {
      const at = s.pos;
      s.skipValue();
      out.push({ key, value: s.text.slice(at, s.pos), from, to: s.pos });
      if (s.pos === at) {
        s.error(at, at + 1, `expected a value for '${key}'`);
        return out;
      }
    } else {
      s.error(from, s.pos + 1, `expected ':' or '{' after '${key}'`);
      return out;
    }
  }
  return out;
}
