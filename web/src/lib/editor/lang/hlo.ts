import type { StreamParser } from '@codemirror/language';

/** Per-line state: whether we are inside a `/* … *\/` comment, and whether the `=` of an instruction was seen. */
interface HloState {
  comment: boolean;
  afterEq: boolean;
  opcodeSeen: boolean;
}

const KEYWORDS = new Set(['HloModule', 'ENTRY', 'ROOT']);
// `f32[8192,8192]{1,0}`, `bf16[]`, `pred[4]`, `(f32[2], s32[])` elements, `token[]`.
const TYPE = /^(?:pred|token|opaque|[subfc](?:\d+)|bf16|tf32|f8e\w+|f4e2m1fn|f6e\w+)\[[\d,<=?]*\](?:\{[^}\s]*\})?/;

/**
 * HLO text (`HloModule`, computations, instructions with layouts and attributes), tokenized line by
 * line so that only the lines in view are ever highlighted.
 */
export const hloParser: StreamParser<HloState> = {
  name: 'hlo',
  startState: () => ({ comment: false, afterEq: false, opcodeSeen: false }),
  copyState: (s) => ({ ...s }),
  token(stream, state) {
    if (stream.sol()) {
      state.afterEq = false;
      state.opcodeSeen = false;
    }
    if (state.comment) {
      if (stream.skipTo('*/')) {
        stream.pos += 2;
        state.comment = false;
      } else stream.skipToEnd();
      return 'comment';
    }
    if (stream.eatSpace()) return null;
    if (stream.match('/*')) {
      state.comment = true;
      return 'comment';
    }
    if (stream.match('//')) {
      stream.skipToEnd();
      return 'lineComment';
    }
    if (stream.match(/^"(?:[^"\\]|\\.)*"?/)) return 'string';
    if (stream.match(TYPE)) return 'typeName';
    if (stream.match(/^%[\w.\-]+/)) return state.afterEq ? 'variableName' : 'variableName.definition';
    if (stream.match(/^[A-Za-z_][\w.\-]*(?==)/)) return 'propertyName';
    if (stream.match('=')) {
      state.afterEq = true;
      return 'operator';
    }
    const word = stream.match(/^[A-Za-z_][\w.\-]*/) as RegExpMatchArray | null;
    if (word) {
      const w = word[0];
      if (KEYWORDS.has(w)) return 'keyword';
      if (state.afterEq && !state.opcodeSeen && stream.peek() === '(') {
        state.opcodeSeen = true;
        return 'keyword';
      }
      if (!state.afterEq && stream.match(/^\s*=/, false)) return 'variableName.definition';
      return state.afterEq ? 'variableName' : 'name';
    }
    if (stream.match(/^-?(?:\d+\.?\d*(?:e[+-]?\d+)?|inf|nan)/i)) return 'number';
    if (stream.match(/^[{}()[\],:]/)) return 'punctuation';
    stream.next();
    return null;
  },
  languageData: { commentTokens: { block: { open: '/*', close: '*/' } } },
};

