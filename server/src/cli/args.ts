/** A parsed `seam` command line. */
export type Command =
  | { readonly name: 'analyze'; readonly files: readonly string[]; readonly json: boolean; readonly top: number }
  | { readonly name: 'link'; readonly files: readonly [string, string, string]; readonly format: 'table' | 'markdown' | 'json' }
  | { readonly name: 'diff'; readonly files: readonly [string, string]; readonly json: boolean }
  | { readonly name: 'gate'; readonly dir: string; readonly value?: string; readonly bar: number; readonly json: boolean }
  | { readonly name: 'push'; readonly link: string; readonly paths: readonly string[]; readonly watch: boolean; readonly quietSeconds: number }
  | { readonly name: 'migrate'; readonly dataDir: string; readonly url: string }
  | { readonly name: 'help' };

/** What `seam --help` prints. */
export const USAGE = `Usage:
  seam analyze FILE... [--json] [--top N]
      For each dump: kind, outline, fusions, top spill candidates (bytes, traffic),
      decoded dot_generals and diagnostics. --json prints one JSON object per file per
      line: {file, kind, diagnostics, index}. --top limits listed spills (default 10).
  seam link JAXPR STABLEHLO HLO [--markdown | --json]
      One row per jaxpr equation with the StableHLO ops and HLO instructions it became.
  seam diff A B [--json]
      Structural diff of two HLO modules (captures, uploads or pass dumps), matched by
      opcode, shape, operands, op_name and source line, not by names: instructions added
      and removed, fusions formed, split or gone, custom calls, spill candidates appearing
      or disappearing with their bytes, total traffic. Markdown; --json for all of it.
  seam gate CAPTURE_DIR [--value NAME] [--bar 0.2] [--json]
      The spill gate on a capture folder (hlo-opt.txt, trace.json.gz, result.json with the
      measured bandwidth, cost.json): the hardware time of the ops that write and read the
      value (default: the top spill candidate) at the measured bandwidth, against the dump's
      estimate. Exit 0 within the bar (default 0.2 = 20%), 1 outside, 3 when no gate can be made.
  seam push ROOM_LINK PATH... [--watch] [--quiet SECONDS]
      Brings files and folders (read recursively: XLA dump folders from --xla_dump_to, JAX's
      JAX_DUMP_IR_TO files, traces) into a room: ROOM_LINK is the annotator or owner link
      from "Share" (https://HOST/r/ROOM#token=...; the token is never printed). Files are
      grouped by jit module as the room lists them; binary protos and object files are left
      out with the reason. Only what the server lacks is sent (by sha256), with progress
      (files, bytes, MB/s); a push that broke off resumes when run again, and pushing the
      same files twice adds nothing. --watch keeps going and pushes new or changed files
      once each has been unchanged for --quiet seconds (default 2). Exit 0 when pushed,
      1 when the server refused or could not be reached, 2 for a bad command line or link.
  seam migrate DATA_DIR DATABASE_URL
      Copies an embedded data directory (DATA_DIR/seam.db; stop its server first) into the
      PostgreSQL database at DATABASE_URL (postgres://USER@HOST:PORT/DB; a password is best
      given in PGPASSWORD) for scaled mode: rooms, updates, dumps, traces, replay history,
      capture jobs, invitations, drills and runner tokens, in batches. Rows already there are
      kept, so a copy that broke off is finished by running it again. Exit 0 when copied, 1
      when DATA_DIR has no seam.db or PostgreSQL cannot be reached.
`;

/** Thrown for a command line that cannot be run; the message says why. */
export class UsageError extends Error {}

/** Parses `argv` (without `node` and the script). Throws `UsageError` for a bad command line. */
export function parseArgs(argv: readonly string[]): Command {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || argv.includes('--help') || argv.includes('-h')) return { name: 'help' };
  const flags = new Set<string>();
  const positional: string[] = [];
  let top = 10;
  const valued = new Map<string, string>();
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i] ?? '';
    if (a === '--top') {
      const n = Number(rest[++i]);
      if (!Number.isInteger(n) || n < 0) throw new UsageError('--top needs a whole number');
      top = n;
    } else if (a === '--value' || a === '--bar' || a === '--quiet') {
      const v = rest[++i];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`${a} needs a value`);
      valued.set(a, v);
      flags.add(a);
    } else if (a.startsWith('--')) flags.add(a);
    else positional.push(a);
  }
  if (name === 'analyze') {
    for (const f of flags) if (f !== '--json') throw new UsageError(`unknown option ${f} for analyze`);
    if (positional.length === 0) throw new UsageError('analyze needs at least one FILE');
    return { name, files: positional, json: flags.has('--json'), top };
  }
  if (name === 'link') {
    for (const f of flags) if (f !== '--json' && f !== '--markdown') throw new UsageError(`unknown option ${f} for link`);
    const [j, s, h] = positional;
    if (positional.length !== 3 || j === undefined || s === undefined || h === undefined) throw new UsageError('link needs exactly three files: JAXPR STABLEHLO HLO');
    return { name, files: [j, s, h], format: flags.has('--json') ? 'json' : flags.has('--markdown') ? 'markdown' : 'table' };
  }
  if (name === 'diff') {
    for (const f of flags) if (f !== '--json') throw new UsageError(`unknown option ${f} for diff`);
    const [a, b] = positional;
    if (positional.length !== 2 || a === undefined || b === undefined) throw new UsageError('diff needs exactly two files: A B');
    return { name, files: [a, b], json: flags.has('--json') };
  }
  if (name === 'gate') {
    for (const f of flags) if (f !== '--json' && f !== '--value' && f !== '--bar') throw new UsageError(`unknown option ${f} for gate`);
    const [dir] = positional;
    if (positional.length !== 1 || dir === undefined) throw new UsageError('gate needs exactly one CAPTURE_DIR');
    const barText = valued.get('--bar');
    const bar = barText === undefined ? 0.2 : Number(barText);
    if (!Number.isFinite(bar) || bar < 0) throw new UsageError('--bar needs a non-negative fraction, e.g. 0.2 for 20%');
    const value = valued.get('--value');
    return { name, dir, bar, json: flags.has('--json'), ...(value !== undefined ? { value } : {}) };
  }
  if (name === 'push') {
    for (const f of flags) if (f !== '--watch' && f !== '--quiet') throw new UsageError(`unknown option ${f} for push`);
    const [link, ...paths] = positional;
    if (link === undefined || paths.length === 0) throw new UsageError('push needs a ROOM_LINK and at least one PATH');
    const quietText = valued.get('--quiet');
    const quietSeconds = quietText === undefined ? 2 : Number(quietText);
    if (!Number.isFinite(quietSeconds) || quietSeconds < 0) throw new UsageError('--quiet needs a number of seconds, e.g. 2');
    return { name, link, paths, watch: flags.has('--watch'), quietSeconds };
  }
  if (name === 'migrate') {
    if (flags.size > 0) throw new UsageError(`unknown option ${[...flags].join(' ')} for migrate`);
    const [dataDir, url] = positional;
    if (positional.length !== 2 || dataDir === undefined || url === undefined) throw new UsageError('migrate needs a DATA_DIR and a DATABASE_URL');
    if (!/^postgres(ql)?:\/\/[^/]/.test(url)) throw new UsageError('DATABASE_URL must be a postgres:// URL');
    return { name, dataDir, url };
  }
  throw new UsageError(`unknown command ${name}`);
}
