import type { StreamParser } from '@codemirror/language';

interface JaxprState {
  /** Inside `[ … ]` parameters of an equation, where `name=` is a parameter. */
  params: number;
  /** The `=` of an equation was seen on this line and its primitive not yet. */
  primitiveNext: boolean;
  /** Parameter depth outside each open `{`: a sub-jaxpr inside parameters has equations of its own. */
  outer: number[];
}

const KEYWORDS = new Set(['lambda', 'let', 'in']);
// `f32[16,32]`, `bf16[]`, `i32[]`, `bool[3]`, `key<fry>[]`.
const TYPE = /^(?:bool|[iuf]\d+|bf16|c\d+|f8_\w+|key<\w+>)\[[\d,]*\]/;

/**
 * Jaxpr text: `{ lambda ; a:f32[16,32]. let … in (…) }`, equations `c:f32[16,32] = dot_general[…] a b`,
 * sub-jaxprs in parameters, tokenized line by line.
 */
export const jaxprParser: StreamParser<JaxprState> = {
  name: 'jaxpr',
  startState: () => ({ params: 0, primitiveNext: false, outer: [] }),
  copyState: (s) => ({ ...s, outer: [...s.outer] }),
  token(stream, state) {
    if (stream.sol()) state.primitiveNext = false;
    if (stream.eatSpace()) return null;
    if (stream.match('#')) {
      stream.skipToEnd();
      return 'lineComment';
    }
    if (stream.match(/^"(?:[^"\\]|\\.)*"?/) || stream.match(/^'(?:[^'\\]|\\.)*'?/)) return 'string';
    if (stream.match(TYPE)) return 'typeName';
    const word = stream.match(/^[A-Za-z_][\w.]*/) as RegExpMatchArray | null;
    if (word) {
      const w = word[0];
      if (KEYWORDS.has(w)) return 'keyword';
      if (stream.peek() === ':') return 'variableName.definition';
      if (state.params > 0 && stream.match(/^\s*=/, false)) return 'propertyName';
      if (state.primitiveNext) {
        state.primitiveNext = false;
        return 'keyword';
      }
      return 'variableName';
    }
    if (stream.eat('[')) {
      state.params++;
      return 'punctuation';
    }
    if (stream.eat(']')) {
      state.params = Math.max(0, state.params - 1);
      return 'punctuation';
    }
    if (stream.match(/^-?\d+\.?\d*(?:e[+-]?\d+)?/)) return 'number';
    if (stream.eat('=')) {
      if (state.params === 0) state.primitiveNext = true;
      return 'operator';
    }
    if (stream.eat('{')) {
      state.outer.push(state.params);
      state.params = 0;
      return 'brace';
    }
    if (stream.eat('}')) {
      state.params = state.outer.pop() ?? 0;
      return 'brace';
    }
    if (stream.match(/^[(),:;.*]/)) return 'punctuation';
    stream.next();
    return null;
  },
  languageData: { commentTokens: { line: '#' } },
};

