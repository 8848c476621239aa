/**
 * The README's runnable shell blocks: a fenced `sh` block right after an HTML comment
 * `<!-- runnable -->` (each line a command that runs to its end) or `<!-- runnable: start -->`
 * (the command that starts the server). Comments are invisible on GitHub, so the README reads the
 * same; the README test runs what they mark from a clean clone.
 */
export interface RunnableBlock {
  readonly mode: 'run' | 'start';
  /** 1-based line of the fence's first command in the README. */
  readonly line: number;
  /** The block's commands, one per line, without blank lines and `#` comment lines. */
  readonly commands: readonly string[];
}

/** Every block marked runnable, in README order; a marker not followed by an `sh` fence is an error. */
export function runnableBlocks(readme: string): RunnableBlock[] {
  const lines = readme.split('\n');
  const out: RunnableBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^<!-- runnable(: start)? -->$/.exec(lines[i]!.trim());
    if (!m) continue;
    if (lines[i + 1]?.trim() !== '```sh') throw new Error(`README line ${i + 1}: a runnable marker must be followed by a \`\`\`sh fence`);
    const commands: string[] = [];
    let j = i + 2;
    for (; j < lines.length && lines[j]!.trim() !== '```'; j++) {
      const c = lines[j]!.trim();
      if (c && !c.startsWith('#')) commands.push(c);
    }
    if (j >= lines.length) throw new Error(`README line ${i + 2}: the runnable block is never closed`);
    out.push({ mode: m[1] ? 'start' : 'run', line: i + 3, commands });
    i = j;
  }
  return out;
}

/** The exit status a command's README comment promises, `(exit N)`, else 0. */
export function promisedExit(command: string): number {
  const m = /#.*\(exit (\d+)\)/.exec(command);
  return m ? Number(m[1]) : 0;
}
