import { StreamLanguage, type StreamParser } from '@codemirror/language';

interface PythonState {
  /** The quote that closes an open triple-quoted string (`'''` or `"""`), or null outside one. */
  triple: string | null;
  /** The previous word was `def` or `class`: the next name is a definition. */
  defNext: boolean;
}

const KEYWORDS = new Set([
  'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue', 'def', 'del', 'elif', 'else', 'except',
  'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is', 'lambda', 'nonlocal', 'not', 'or', 'pass',
  'raise', 'return', 'try', 'while', 'with', 'yield', 'match', 'case',
]);
const ATOMS = new Set(['True', 'False', 'None']);
// e.g. `0x1f`, `1_000`, `3.5e-3`, `2j`
const NUMBER = /^(?:0[xob][\da-f_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:e[+-]?\d+)?j?)/i;
// The opening of a string literal with its prefix, e.g. `f"`, `rb'''`.
const STRING_START = /^(?:[rbuf]{0,2})("""|'''|"|')/i;

function readTriple(stream: Parameters<StreamParser<PythonState>['token']>[0], state: PythonState): string {
  const close = state.triple ?? '';
  while (!stream.eol()) {
    if (stream.match(close)) {
      state.triple = null;
      return 'string';
    }
    if (stream.next() === '\\') stream.next();
  }
  return 'string';
}

/**
 * Python, enough to read a JAX program: keywords, definitions after `def` and `class`,
 * decorators, strings (triple-quoted ones across lines), numbers and comments, line by line.
 */
export const pythonParser: StreamParser<PythonState> = {
  name: 'python',
  startState: () => ({ triple: null, defNext: false }),
  copyState: (s) => ({ ...s }),
  token(stream, state) {
    if (state.triple) return readTriple(stream, state);
    if (stream.eatSpace()) return null;
    if (stream.match('#')) {
      stream.skipToEnd();
      return 'lineComment';
    }
    const str = stream.match(STRING_START) as RegExpMatchArray | null;
    if (str) {
      const q = str[1] ?? '"';
      if (q.length === 3) {
        state.triple = q;
        return readTriple(stream, state);
      }
      while (!stream.eol()) {
        const ch = stream.next();
        if (ch === '\\') stream.next();
        else if (ch === q) break;
      }
      return 'string';
    }
    if (stream.match(/^@[\w.]+/)) return 'meta';
    if (stream.match(NUMBER)) return 'number';
    const word = stream.match(/^[A-Za-z_]\w*/) as RegExpMatchArray | null;
    if (word) {
      const w = word[0];
      if (state.defNext) {
        state.defNext = false;
        return 'variableName.definition';
      }
      if (KEYWORDS.has(w)) {
        state.defNext = w === 'def' || w === 'class';
        return 'keyword';
      }
      if (ATOMS.has(w)) return 'bool';
      if (stream.peek() === '(') return 'variableName.function';
      return 'variableName';
    }
    if (stream.match(/^(?:\*\*|\/\/|[-+*/%@&|^~<>=!])=?/)) return 'operator';
    if (stream.match(/^[()[\]{},:;.]/)) return 'punctuation';
    stream.next();
    return null;
  },
  languageData: { commentTokens: { line: '#' }, indentOnInput: /^\s*(?:else|elif|except|finally)\b/ },
};

/** The Python language for the Capture panel's program editor. */
export const pythonLanguage = StreamLanguage.define(pythonParser);
