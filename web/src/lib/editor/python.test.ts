import { ensureSyntaxTree, StringStream } from '@codemirror/language';
import { EditorState } from '@codemirror/state';
import { highlightTree, tags as t } from '@lezer/highlight';
import { describe, expect, it } from 'vitest';
import { irHighlightStyle } from './lang/highlight';
import { pythonLanguage, pythonParser } from './python';

/** Every token of `text` with its style, as CodeMirror's stream language would produce them. */
function tokens(text: string): Array<[string, string | null]> {
  const state = pythonParser.startState!(4);
  const out: Array<[string, string | null]> = [];
  for (const line of text.split('\n')) {
    const stream = new StringStream(line, 4, 4);
    while (!stream.eol()) {
      const style = pythonParser.token(stream, state);
      if (stream.pos === stream.start) throw new Error(`no progress at ${stream.pos} of ${JSON.stringify(line)}`);
      out.push([stream.current(), style]);
      stream.start = stream.pos;
    }
  }
  return out;
}

const styleOf = (toks: Array<[string, string | null]>, text: string) => toks.find(([t]) => t === text)?.[1];

describe('Python highlighting', () => {
  it('reads a JAX program: imports, the entry definition, calls, operators and numbers', () => {
    const t = tokens('import jax\n\n@jax.jit\ndef mlp(x, w, b):\n    return jax.nn.relu(x @ w + b).mean(axis=-1)  # the MLP\n');
    expect(styleOf(t, 'import')).toBe('keyword');
    expect(styleOf(t, '@jax.jit')).toBe('meta');
    expect(styleOf(t, 'def')).toBe('keyword');
    expect(styleOf(t, 'mlp')).toBe('variableName.definition');
    expect(styleOf(t, 'relu')).toBe('variableName.function');
    expect(styleOf(t, '@')).toBe('operator');
    expect(styleOf(t, '1')).toBe('number');
    expect(styleOf(t, '# the MLP')).toBe('lineComment');
  });

  it('keeps a triple-quoted string open across lines and closes it on its own quote', () => {
    const t = tokens('x = """first\nsecond " still\nend"""\ny = 2.5e-3');
    expect(t.filter(([, s]) => s === 'string').map(([x]) => x)).toEqual(['"""first', 'second " still', 'end"""']);
    expect(styleOf(t, 'y')).toBe('variableName');
    expect(styleOf(t, '2.5e-3')).toBe('number');
  });

  it('reads prefixed strings with escapes, and True/None as atoms', () => {
    const t = tokens("s = f'it\\'s {x}' if True else None");
    expect(styleOf(t, "f'it\\'s {x}'")).toBe('string');
    expect(styleOf(t, 'True')).toBe('bool');
    expect(styleOf(t, 'None')).toBe('bool');
    expect(styleOf(t, 'if')).toBe('keyword');
  });

  it('gives every token a style the editor knows: definitions and calls get their own colour', () => {
    const doc = 'import jax\n\ndef mlp(x, w, b):\n    return jax.nn.relu(x @ w + b)\n';
    const state = EditorState.create({ doc, extensions: pythonLanguage });
    const tree = ensureSyntaxTree(state, doc.length, 1e9);
    const classes = new Map<string, string>();
    highlightTree(tree!, irHighlightStyle, (from, to, cls) => classes.set(doc.slice(from, to), cls));
    expect(classes.get('mlp')).toBe(irHighlightStyle.style([t.definition(t.variableName)]));
    expect(classes.get('relu')).toBe(irHighlightStyle.style([t.function(t.variableName)]));
    expect(classes.get('x')).toBe(irHighlightStyle.style([t.variableName]));
  });
});
