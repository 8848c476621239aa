import { Text } from '@codemirror/state';

/**
 * A CodeMirror `Text` for a dump. Splitting a 20 MB string on the plain `\n` is several times
 * faster than the editor's default line-break pattern, so that path is taken whenever the text has
 * no carriage return (`\r\n` and `\r` dumps still split exactly as the editor would).
 */
export function dumpText(text: string): Text {
  return Text.of(text.includes('\r') ? text.split(/\r\n?|\n/) : text.split('\n'));
}
