/**
 * Work a runner finishes before it can run its first capture (the local runner's first virtualenv
 * build), started at once and awaited by the first job, whose phase shows its progress lines.
 */
export class Preparation {
  /** Settles when the work is done; rejects with its error when it fails. */
  readonly done: Promise<void>;
  private line: string;
  private settled = false;
  private readonly listeners = new Set<(line: string) => void>();

  /** Starts `work`, which reports each progress line through the function it is given. */
  constructor(work: (onLine: (line: string) => void) => Promise<void>, first = 'starting') {
    this.line = first;
    this.done = work((line) => {
      this.line = line;
      for (const l of this.listeners) l(line);
    }).finally(() => {
      this.settled = true;
      this.listeners.clear();
    });
    // A failure is handled by whoever awaits `done`; none may be waiting yet.
    this.done.catch(() => undefined);
  }

  /** Whether the work is still under way. */
  get pending(): boolean {
    return !this.settled;
  }

  /** The latest progress line (`first` until the work says something). */
  get latest(): string {
    return this.line;
  }

  /** Calls `listener` with each further progress line until the work ends; returns the function that stops it. */
  onLine(listener: (line: string) => void): () => void {
    if (this.settled) return () => undefined;
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** The phase a job shows while the runner prepares: `preparing the runner (first use): <line>`, at most 200 characters. */
export function preparingPhase(line: string): string {
  return `preparing the runner (first use): ${line}`.slice(0, 200);
}
