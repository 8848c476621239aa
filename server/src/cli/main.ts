import { runCli } from './run';

// A closed pipe (`seam analyze … | head`) ends the command quietly.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

// Ctrl+C ends `seam push --watch` between batches; a second one ends it at once.
const stop = new AbortController();
if (process.argv[2] === 'push' && process.argv.includes('--watch')) {
  process.once('SIGINT', () => {
    stop.abort();
    process.once('SIGINT', () => process.exit(130));
  });
}

process.exitCode = await runCli(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  // On a terminal, progress rewrites one line in place; elsewhere it is written as plain lines.
  ...(process.stderr.isTTY ? { status: (line: string) => process.stderr.write(`\r\x1b[K${line}`) } : {}),
}, stop.signal);
