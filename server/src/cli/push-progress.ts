/** Bytes in MB (10^6), one decimal: the unit of the rate too. */
const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

/**
 * Progress of a push: files and bytes sent of the total, and the rate. On a terminal one line is
 * rewritten in place (`status`); otherwise a plain line is written at each tenth of the bytes.
 */
export class PushProgress {
  private files = 0;
  private bytes = 0;
  private readonly started = performance.now();
  private shownTenth = 0;

  constructor(
    private readonly totalFiles: number,
    private readonly totalBytes: number,
    private readonly out: (line: string) => void,
    private readonly status?: (line: string) => void,
  ) {}

  /** Counts one file done (sent, or already on the server) of `bytes`. */
  done(bytes: number): void {
    this.files++;
    this.bytes += bytes;
    if (this.status) this.status(this.line());
    else {
      const tenth = this.totalBytes === 0 ? 10 : Math.floor((this.bytes / this.totalBytes) * 10);
      if (tenth > this.shownTenth || this.files === this.totalFiles) {
        this.shownTenth = tenth;
        this.out(this.line());
      }
    }
  }

  /** `120/2000 files, 31.2 MB of 500.0 MB, 48.1 MB/s`. */
  line(): string {
    const s = (performance.now() - this.started) / 1000;
    const rate = s > 0 ? this.bytes / 1e6 / s : 0;
    return `${this.files}/${this.totalFiles} files, ${mb(this.bytes)} of ${mb(this.totalBytes)}, ${rate.toFixed(1)} MB/s`;
  }

  /** Ends the terminal line. */
  finish(): void {
    this.status?.('');
  }
}
