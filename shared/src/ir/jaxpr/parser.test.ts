import { describe, expect, it } from 'vitest';
import type { Jaxpr, JaxprEquation } from './ast';
import { parseJaxpr } from './parser';

/** Every equation, depth first through sub-jaxprs. */
function equations(j: Jaxpr | undefined): JaxprEquation[] {
  if (!j) return [];
  return j.equations.flatMap((e) => [e, ...e.params.flatMap((p) => p.jaxprs.flatMap(equations))]);
}

function errors(text: string): string[] {
  return parseJaxpr(text).diagnostics.filter((d) => d.severity === 'error').map((d) => d.message);
}

describe('jaxpr parser', () => {
  it('reads typed binders, constvars, literals, params and outputs', () => {
    const text = '{ lambda a:f32[4] ; b:f32[16,32] c:bf16[]. let\n    d:f32[16,32] = mul b 2.0:f32[]\n    _:f32[16,32] = add d 1.0:f32[]\n    e:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c\n  in (d, e, 1.0:f32[]) }\n';
    const { ast, diagnostics } = parseJaxpr(text);
    expect(diagnostics).toEqual([]);
    const j = ast.jaxprs[0];
    expect(j?.constvars.map((v) => [v.text, v.type])).toEqual([['a', 'f32[4]']]);
    expect(j?.invars.map((v) => [v.text, v.type])).toEqual([['b', 'f32[16,32]'], ['c', 'bf16[]']]);
    expect(j?.equations.map((e) => [e.outvars.map((v) => v.text).join(' '), e.primitive, e.invars.map((v) => v.text).join(' '), e.line])).toEqual([
      ['d', 'mul', 'b 2.0', 2],
      ['_', 'add', 'd 1.0', 3],
      ['e', 'convert_element_type', 'c', 4],
    ]);
    expect(j?.equations[0]?.invars[1]).toMatchObject({ literal: true, type: 'f32[]' });
    expect(j?.equations[2]?.params.map((p) => [p.name, p.value])).toEqual([['new_dtype', 'int32'], ['weak_type', 'False']]);
    expect(j?.outvars.map((v) => v.text)).toEqual(['d', 'e', '1.0']);
  });

  it('reads one-line jaxprs with `;` between equations', () => {
    const { ast, diagnostics } = parseJaxpr('{ lambda ; a:f32[]. let b:f32[] = cos a; c:f32[] = sin b in (c,) }');
    expect(diagnostics).toEqual([]);
    expect(ast.jaxprs[0]?.equations.map((e) => e.primitive)).toEqual(['cos', 'sin']);
  });

  it('reads the legacy untyped printer with multi-line params and cond branches', () => {
    const text = [
      '{ lambda  ; a.',
      '  let b = ge a 0.0',
      '      e = convert_element_type[ new_dtype=int32',
      '                                weak_type=False ] b',
      '      f = cond[ branches=( { lambda  ; e_ a b c.',
      '                             let d = sub c a',
      '                             in (d,) }',
      '                           { lambda  ; a f_ b c.',
      '                             let d = add b a',
      '                             in (d,) } )',
      '                linear=(False, False, False, False) ] e a a c d',
      '  in (f,) }',
    ].join('\n');
    const { ast, diagnostics } = parseJaxpr(text);
    expect(diagnostics).toEqual([]);
    const cond = ast.jaxprs[0]?.equations[2];
    expect(cond?.primitive).toBe('cond');
    expect(cond?.params.find((p) => p.name === 'branches')?.jaxprs.map((j) => j.equations[0]?.primitive)).toEqual(['sub', 'add']);
    expect(cond?.invars.map((v) => v.text)).toEqual(['e', 'a', 'a', 'c', 'd']);
    expect(equations(ast.jaxprs[0]).map((e) => e.primitive)).toEqual(['ge', 'convert_element_type', 'cond', 'sub', 'add']);
  });

  it('reads nested jit/pjit, scan with drop vars and `*`, and shared `let` definitions', () => {
    const text = [
      'let f = { lambda ; a:f32[1] b:f32[1]. let c:f32[1] = mul b a in (c,) } in',
      '{ lambda ; d:f32[1] e:f32[1]. let',
      '    g:f32[1] = pjit[',
      '      name=g',
      '      jaxpr={ lambda ; h:f32[1] i:f32[1]. let',
      '          j:f32[1] = pjit[name=f jaxpr=f] i h',
      '        in (j,) }',
      '    ] d e',
      '    _ k = scan[ jaxpr={ lambda ; a b. let c = mul a b in (*, c) } length=5 ] * g',
      '  in (g, k) }',
    ].join('\n');
    const { ast, diagnostics } = parseJaxpr(text);
    expect(diagnostics).toEqual([]);
    expect(ast.jaxprs.map((j) => j.name)).toEqual(['f', undefined]);
    expect(equations(ast.jaxprs[1]).map((e) => e.primitive)).toEqual(['pjit', 'pjit', 'scan', 'mul']);
    expect(ast.jaxprs[1]?.equations[1]?.outvars.map((v) => v.text)).toEqual(['_', 'k']);
    expect(ast.jaxprs[1]?.equations[1]?.params.map((p) => p.name)).toEqual(['jaxpr', 'length']);
  });

  it('attaches source info and name stacks printed as comments', () => {
    const text = [
      '{ lambda ; a:bf16[32,64] b:bf16[64,128]. let',
      '    d:bf16[32,128] = dot_general[                                             # program.py:5:23 (mlp)',
      '                                                                              # [outer]',
      '      dimension_numbers=(([1], [0]), ([], []))',
      '      preferred_element_type=bfloat16',
      '    ] a b',
      '    e:bf16[32,128] = max d 0.0:bf16[]                                         # ',
      '                                                                              # []',
      '  in (e,) }',
    ].join('\n');
    const { ast, diagnostics } = parseJaxpr(text);
    expect(diagnostics).toEqual([]);
    const [dot, max] = ast.jaxprs[0]?.equations ?? [];
    expect(dot?.source).toEqual({ file: 'program.py', line: 5, column: 23 });
    expect(dot?.nameStack).toBe('outer');
    expect(dot?.params[0]?.value).toBe('(([1], [0]), ([], []))');
    expect(max?.source).toBeUndefined();
    expect(max?.nameStack).toBe('');
  });

  it('reads state effects and HTML-printed jaxprs, and notes text after the jaxpr', () => {
    const state = '{ lambda ; a:MemRef<None>{float32[8,128]} c:MemRef<None>{float32[8,128]}. let\n    d:f32[8,128] <- a[:,:]\n    c[:,:] <- d\n  in () }\n\nThe Mosaic module:\nmodule {\n}\n';
    const s = parseJaxpr(state);
    expect(s.diagnostics.map((d) => d.severity)).toEqual(['info']);
    expect(s.ast.jaxprs[0]?.equations.map((e) => [e.binder, e.primitive])).toEqual([['<-', 'get'], ['<-', 'swap']]);
    const html = '{ lambda ; <a id="v_c">c</a>:f32[1]. let\n    <a id="v_d">d</a>:f32[1] = jit[name=&lt;lambda&gt; jaxpr={ lambda ; <a id="v_e">e</a>:f32[1]. let  in (<a href="#v_e">e</a>,) }] <a href="#v_c">c</a>\n  in (<a href="#v_d">d</a>,) }';
    const h = parseJaxpr(html);
    expect(h.diagnostics).toEqual([]);
    expect(h.ast.jaxprs[0]?.invars.map((v) => [v.text, v.type])).toEqual([['c', 'f32[1]']]);
    expect(h.ast.jaxprs[0]?.equations[0]?.params[0]?.value).toBe('<lambda>');
  });

  it('reports missing braces, brackets, `in` and `let`, and text that holds no jaxpr', () => {
    const cases = [
      '{ lambda ; a:f32[4]. let\n    b:f32[4] = neg a\n  in (b,)\n',
      '{ lambda ; a:f32[4]. let\n    b:f32[4] = dot_general[dimension_numbers=(([1], [0]) a a\n  in (b,) }\n',
      '{ lambda ; a:f32[4]. let\n    b:f32[4] = neg a\n }',
      '{ lambda ; a:f32[4].\n    b:f32[4] = neg a\n  in (b,) }',
      'hello world',
      '{ lambda ; a:f32[4]. let\n    b:f32[4] = ) a\n  in (b,) }',
    ];
    for (const t of cases) {
      expect(errors(t).length, t).toBeGreaterThan(0);
      for (const d of parseJaxpr(t).diagnostics) expect(d.from >= 0 && d.from <= d.to && d.to <= t.length, t).toBe(true);
    }
  });
});

describe('jaxpr parser limits', () => {
  it('keeps sub-jaxprs nested past 256 levels as parameter text, with one error', () => {
    const n = 5000;
    const text = `${'{ lambda ; a. let b = p[x='.repeat(n)}{ lambda ; a. let in (a,) }${'] a in (b,) }'.repeat(n)}`;
    const { diagnostics } = parseJaxpr(text);
    expect(diagnostics.map((d) => d.message)).toEqual(['jaxprs nested deeper than 256 levels are not read']);
  });
});
