import { describe, expect, it } from 'vitest';
import { EditorState } from '@codemirror/state';
import { dumpText } from './dump-text';

describe('dumpText', () => {
  it('splits lines exactly as the editor does, for LF, CRLF and CR texts', () => {
    for (const text of ['a\nb\n\nc', 'a\r\nb\r\n', 'a\rb', '', '\n', 'no newline']) {
      const ours = dumpText(text);
      const theirs = EditorState.create({ doc: text }).doc;
      expect(ours.lines).toBe(theirs.lines);
      expect(ours.toString()).toBe(theirs.toString());
    }
  });
});
