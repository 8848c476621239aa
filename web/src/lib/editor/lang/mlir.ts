import type { StreamParser } from '@codemirror/language';

interface MlirState {
  /** Depth of `<…>` inside a type such as `tensor<16x32xf32>`. */
  angle: number;
}

const KEYWORDS = new Set(['module', 'func', 'return', 'attributes', 'loc', 'to', 'x', 'private', 'public']);

/**
 * StableHLO / MLIR text: `%values`, `@symbols`, dialect ops (`stablehlo.dot_general`), `tensor<…>`
 * types, attributes and `loc(…)` debug info, tokenized line by line.
 */
export const mlirParser: StreamParser<MlirState> = {
  name: 'mlir',
  startState: () => ({ angle: 0 }),
  copyState: (s) => ({ ...s }),
  token(stream, state) {
    if (stream.eatSpace()) return null;
    if (state.angle > 0) {
      if (stream.eat('<')) state.angle++;
      else if (stream.eat('>')) state.angle--;
      else if (!stream.match(/^[^<>\s]+/)) stream.next();
      return 'typeName';
    }
    if (stream.match('//')) {
      stream.skipToEnd();
      return 'lineComment';
    }
    if (stream.match(/^"(?:[^"\\]|\\.)*"?/)) return 'string';
    if (stream.match(/^%[\w.$\-#:]+/)) return stream.match(/^(?:\s*,\s*%[\w.$\-#:]+)*\s*=(?!=)/, false) ? 'variableName.definition' : 'variableName';
    if (stream.match(/^\^[\w.$\-]+/)) return 'labelName';
    if (stream.match(/^@[\w.$\-]+/) || stream.match(/^@"(?:[^"\\]|\\.)*"/)) return 'variableName.function';
    if (stream.match(/^#loc\d*/) || stream.match(/^#[\w.$\-]+/)) return 'meta';
    if (stream.match(/^!?(?:tensor|vector|memref|complex|tuple)</)) {
      state.angle = 1;
      return 'typeName';
    }
    if (stream.match(/^(?:[sui]?i\d+|f\d+\w*|bf16|tf32|index|none)\b/)) return 'typeName';
    if (stream.match(/^[a-z_]\w*\.[\w.]+/)) return 'keyword';
    const word = stream.match(/^[A-Za-z_][\w$]*/) as RegExpMatchArray | null;
    if (word) {
      if (word[0] === 'loc') return 'comment';
      if (KEYWORDS.has(word[0])) return 'keyword';
      if (stream.match(/^\s*=/, false)) return 'propertyName';
      return 'name';
    }
    if (stream.match(/^-?(?:0x[\da-fA-F]+|\d+\.?\d*(?:e[+-]?\d+)?)/)) return 'number';
    if (stream.match('->')) return 'operator';
    if (stream.match(/^[{}()[\],:=<>]/)) return 'punctuation';
    stream.next();
    return null;
  },
  languageData: { commentTokens: { line: '//' } },
};

