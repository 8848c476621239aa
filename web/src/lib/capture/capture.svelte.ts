import * as Y from 'yjs';
import { isFinalStatus, readCaptures, RoomKey, SettingKey, type CaptureEntry, type CaptureRequestInput } from '@seam/shared/model';
import { ApiError } from '../room/api';
import type { CaptureApi, RunnerListing } from './capture-api';
import { buildRequest, EMPTY_FORM, MLP_EXAMPLE, parseSpecs, type CaptureForm, type ParsedSpecs } from './capture-form';
import { rerunRequest } from './capture-rerun';

/** The name of the program the panel edits in the room document's `programs` map. */
export const PROGRAM_NAME = 'main';

/** How often the panel asks which runners are connected while it is open. */
export const RUNNER_POLL_MS = 5000;

/** The facts of the room the Capture panel reads (a `RoomState` has them). */
export interface CaptureRoom {
  readonly role: string | null;
  readonly canWrite: boolean;
}

function message(e: unknown): string {
  return e instanceof ApiError || e instanceof Error ? e.message : String(e);
}

/**
 * The Capture panel of one room: the co-edited program (a Y.Text in `programs`), the rest of the
 * form (this person's own), the live queue from the server-written `captures` map, the connected
 * runners, and who may capture (owners; annotators when `allowAnnotatorCapture` is set).
 */
export class CaptureState {
  form = $state<CaptureForm>({ ...EMPTY_FORM, capture: [...EMPTY_FORM.capture] });
  program = $state.raw<Y.Text | null>(null);
  runners = $state.raw<RunnerListing[]>([]);
  runnersError = $state<string | null>(null);
  allowAnnotators = $state(false);
  error = $state<string | null>(null);
  submitting = $state(false);
  private live = $state.raw<CaptureEntry[]>([]);
  /** Jobs this person queued whose entry has not reached the room document yet. */
  private posted = $state.raw<CaptureEntry[]>([]);
  private doc: Y.Doc | null = null;

  readonly specs: ParsedSpecs = $derived(parseSpecs(this.form.args));
  /** The queue, newest first. */
  readonly jobs: CaptureEntry[] = $derived.by(() => {
    const ids = new Set(this.live.map((j) => j.id));
    return [...this.live, ...this.posted.filter((j) => !ids.has(j.id))].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
  });

  constructor(
    private readonly room: CaptureRoom,
    private readonly api: CaptureApi,
  ) {}

  /** Whether this person may run and cancel captures: owners, and annotators when the owner allows it. */
  get canCapture(): boolean {
    return this.room.role === 'owner' || (this.room.role === 'annotator' && this.allowAnnotators);
  }

  /** Whether this person owns the room (and so may allow annotators to capture). */
  get isOwner(): boolean {
    return this.room.role === 'owner';
  }

  /** Follows a room document (again after a resync); returns the function that stops following it. */
  attach(doc: Y.Doc): () => void {
    this.doc = doc;
    const captures = doc.getMap<unknown>(RoomKey.captures);
    const settings = doc.getMap<unknown>(RoomKey.settings);
    const programs = doc.getMap<unknown>(RoomKey.programs);
    const readLive = () => (this.live = readCaptures(doc));
    const readSettings = () => (this.allowAnnotators = settings.get(SettingKey.allowAnnotatorCapture) === true);
    const readProgram = () => {
      const t = programs.get(PROGRAM_NAME);
      this.program = t instanceof Y.Text ? t : null;
    };
    captures.observe(readLive);
    settings.observe(readSettings);
    programs.observe(readProgram);
    readLive();
    readSettings();
    readProgram();
    return () => {
      captures.unobserve(readLive);
      settings.unobserve(readSettings);
      programs.unobserve(readProgram);
      if (this.doc === doc) this.doc = null;
    };
  }

  /**
   * Creates the room's program text if nobody has yet (writers only). Two people creating it at
   * once is harmless: the map keeps one, and both editors follow the one it keeps.
   */
  ensureProgram(): void {
    const doc = this.doc;
    if (!doc || this.program || !this.room.canWrite) return;
    doc.getMap<unknown>(RoomKey.programs).set(PROGRAM_NAME, new Y.Text());
  }

  /** Fills the program with the MLP, `relu(x @ w + b).mean(axis=-1)`, and the form with its entry and specs. */
  loadMlp(): void {
    const doc = this.doc;
    if (!doc || !this.room.canWrite) return;
    this.ensureProgram();
    const text = doc.getMap<unknown>(RoomKey.programs).get(PROGRAM_NAME);
    if (!(text instanceof Y.Text)) return;
    doc.transact(() => {
      text.delete(0, text.length);
      text.insert(0, MLP_EXAMPLE.program);
    });
    this.form = { ...this.form, entry: MLP_EXAMPLE.entry, args: MLP_EXAMPLE.args };
    this.error = null;
  }

  /** Lets annotators request captures, or not (owner only; the server checks it too). */
  setAllowAnnotators(allow: boolean): void {
    if (this.doc && this.isOwner) this.doc.getMap<unknown>(RoomKey.settings).set(SettingKey.allowAnnotatorCapture, allow);
  }

  /** Asks the server which runners are connected. */
  async refreshRunners(): Promise<void> {
    try {
      this.runners = await this.api.runners();
      this.runnersError = null;
      if (this.form.runner && !this.runners.some((r) => r.name === this.form.runner)) this.form = { ...this.form, runner: '' };
    } catch (e) {
      this.runnersError = message(e);
    }
  }

  /** Queues a capture of the program with the form's settings; problems land in `error`. */
  async run(): Promise<void> {
    if (!this.canCapture || this.submitting) return;
    const built = buildRequest(this.program?.toString() ?? '', this.form);
    if ('error' in built) {
      this.error = built.error;
      return;
    }
    await this.submit(built.request);
  }

  private async submit(request: CaptureRequestInput): Promise<void> {
    this.error = null;
    this.submitting = true;
    try {
      const job = await this.api.request(request);
      this.posted = [...this.posted, job];
    } catch (e) {
      this.error = `The capture was not queued: ${message(e)}`;
    } finally {
      this.submitting = false;
    }
  }

  /**
   * "Run again": queues the program as it now reads with a finished capture's entry, specs,
   * layers, runner and options, as that capture's next version (its annotations are carried over).
   */
  async runAgain(jobId: string): Promise<void> {
    const job = this.jobs.find((j) => j.id === jobId);
    if (!this.canCapture || this.submitting || !job || !isFinalStatus(job.status)) return;
    const built = rerunRequest(job, this.program?.toString() ?? '');
    if ('error' in built) {
      this.error = built.error;
      return;
    }
    await this.submit(built.request);
  }

  /** Cancels a queued or running capture. */
  async cancel(jobId: string): Promise<void> {
    const job = this.jobs.find((j) => j.id === jobId);
    if (!this.canCapture || !job || isFinalStatus(job.status)) return;
    try {
      const after = await this.api.cancel(jobId);
      this.posted = this.posted.map((j) => (j.id === after.id ? after : j));
    } catch (e) {
      this.error = `The capture was not cancelled: ${message(e)}`;
    }
  }
}
