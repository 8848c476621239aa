import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from './args';

describe('seam arguments', () => {
  it('reads analyze with files, --json and --top', () => {
    expect(parseArgs(['analyze', 'a.txt', '--json', 'b.mlir', '--top', '3'])).toEqual({ name: 'analyze', files: ['a.txt', 'b.mlir'], json: true, top: 3 });
    expect(parseArgs(['analyze', 'a.txt'])).toEqual({ name: 'analyze', files: ['a.txt'], json: false, top: 10 });
  });

  it('reads link with three files and an output format', () => {
    expect(parseArgs(['link', 'j', 's', 'h'])).toEqual({ name: 'link', files: ['j', 's', 'h'], format: 'table' });
    expect(parseArgs(['link', 'j', 's', 'h', '--markdown'])).toEqual({ name: 'link', files: ['j', 's', 'h'], format: 'markdown' });
    expect(parseArgs(['link', 'j', 's', 'h', '--json'])).toEqual({ name: 'link', files: ['j', 's', 'h'], format: 'json' });
  });

  it('reads gate with a folder, a value, a bar and --json', () => {
    expect(parseArgs(['gate', 'cap'])).toEqual({ name: 'gate', dir: 'cap', bar: 0.2, json: false });
    expect(parseArgs(['gate', 'cap', '--value', 'fusion.3', '--bar', '0.05', '--json'])).toEqual({ name: 'gate', dir: 'cap', value: 'fusion.3', bar: 0.05, json: true });
  });

  it('treats no command, -h and --help as help, after a command too', () => {
    for (const argv of [[], ['-h'], ['--help'], ['help'], ['push', '--help']]) expect(parseArgs(argv)).toEqual({ name: 'help' });
  });

  it('reads push with a link, paths, --watch and --quiet, and refuses it without a path or with a bad --quiet', () => {
    expect(parseArgs(['push', 'http://h/r/x#token=t', 'a', 'b'])).toEqual({ name: 'push', link: 'http://h/r/x#token=t', paths: ['a', 'b'], watch: false, quietSeconds: 2 });
    expect(parseArgs(['push', 'L', 'a', '--watch', '--quiet', '0.5'])).toEqual({ name: 'push', link: 'L', paths: ['a'], watch: true, quietSeconds: 0.5 });
    expect(() => parseArgs(['push', 'L'])).toThrow(UsageError);
    expect(() => parseArgs(['push', 'L', 'a', '--quiet', 'soon'])).toThrow(/--quiet/);
    expect(() => parseArgs(['push', 'L', 'a', '--json'])).toThrow(/unknown option/);
  });

  it('refuses unknown commands and options, missing files and a bad --top, saying why', () => {
    const cases: Array<[string[], RegExp]> = [
      [['frobnicate'], /unknown command frobnicate/],
      [['analyze'], /at least one FILE/],
      [['analyze', 'x', '--yaml'], /unknown option --yaml/],
      [['analyze', 'x', '--top', 'many'], /--top needs a whole number/],
      [['link', 'a', 'b'], /exactly three files/],
      [['link', 'a', 'b', 'c', 'd'], /exactly three files/],
      [['link', 'a', 'b', 'c', '--top', '2', '--yaml'], /unknown option --yaml/],
      [['gate'], /exactly one CAPTURE_DIR/],
      [['gate', 'a', 'b'], /exactly one CAPTURE_DIR/],
      [['gate', 'a', '--bar', 'loose'], /--bar needs a non-negative fraction/],
      [['gate', 'a', '--bar', '-0.1'], /--bar needs a non-negative fraction/],
      [['gate', 'a', '--value'], /--value needs a value/],
      [['gate', 'a', '--markdown'], /unknown option --markdown for gate/],
      [['analyze', 'x', '--bar', '0.2'], /unknown option --bar for analyze/],
    ];
    for (const [argv, message] of cases) {
      expect(() => parseArgs(argv), argv.join(' ')).toThrow(UsageError);
      expect(() => parseArgs(argv), argv.join(' ')).toThrow(message);
    }
  });
});
