import type * as Y from 'yjs';
import type { Analysis } from '@seam/shared/ir';
import {
  readAnnotations, readCaptures, RoomKey, type CaptureEntry, type DocumentMeta, type GateReport, type GateUnavailable,
} from '@seam/shared/model';
import { evaluateLab, readLabView, runsLabCapture, writeLabResults, type Lab, type LabResults, type LabRoomData } from '@seam/shared/teaching';
import type { AppDeps } from '../../app';
import { gunzipAsync } from '../../gunzip';
import { captureGate, GateUnavailableError } from '../../routes/gate';
import type { LabCatalog } from './lab-catalog';

/** The newest finished captures of each lab capture whose analyses are read. */
const CAPTURES_PER_SPEC = 3;
/** Decompressed analyses kept between evaluations, by content hash. */
const ANALYSIS_CACHE = 16;
const LAYER_KINDS = new Set(['jaxpr', 'stablehlo', 'hlo-opt']);

export interface LabEvaluatorOptions {
  /** Least time between the starts of two evaluations of one room; default 1 s. */
  readonly minIntervalMs?: number;
  /** Rooms evaluated at once; default 2. */
  readonly maxConcurrent?: number;
}

type EvaluatorDeps = Pick<AppDeps, 'store' | 'content' | 'rooms' | 'texts' | 'jobs' | 'log'>;

interface RoomSlot {
  running: Promise<LabResults | null> | null;
  queued: Promise<LabResults | null> | null;
  lastStart: number;
}

/**
 * Evaluates the lab of a room from the room's data and writes the results into its `lab` key.
 * Requests and changes are throttled per room (one evaluation at a time, starts at least
 * `minIntervalMs` apart, requests meanwhile share the next one) and bounded across rooms.
 */
export class LabEvaluator {
  private readonly slots = new Map<string, RoomSlot>();
  private readonly watched = new WeakSet<Y.Doc>();
  private readonly analyses = new Map<string, Analysis>();
  private readonly minIntervalMs: number;
  private readonly maxConcurrent: number;
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly deps: EvaluatorDeps, private readonly catalog: LabCatalog, options: LabEvaluatorOptions = {}) {
    this.minIntervalMs = options.minIntervalMs ?? 1000;
    this.maxConcurrent = options.maxConcurrent ?? 2;
  }

  /**
   * Schedules an evaluation whenever the room's captures, documents or annotations change, while the
   * room stays loaded (the caller has loaded it: `await rooms.load(roomId)`). Returns false when this
   * loaded copy of the room was already watched. In scaled mode each instance watches its own copy.
   */
  watch(roomId: string): boolean {
    const { doc } = this.deps.rooms.get(roomId);
    if (this.watched.has(doc)) return false;
    this.watched.add(doc);
    const changed = () => this.scheduleLogged(roomId);
    doc.getMap(RoomKey.captures).observe(changed);
    doc.getMap(RoomKey.documents).observe(changed);
    doc.getMap(RoomKey.annotations).observeDeep(changed);
    return true;
  }

  /**
   * Resumes the lab of a loaded room nobody has asked about since it was loaded (after a restart,
   * or after it was unloaded while idle): watches it and evaluates it once, so that what changed
   * meanwhile (a capture that finished) is checked without anyone opening the Lab panel. Does
   * nothing for a room that is not loaded, has no lab, or is already watched.
   */
  resume(roomId: string): void {
    if (!this.deps.rooms.isLoaded(roomId) || !readLabView(this.deps.rooms.get(roomId).doc)) return;
    if (this.watch(roomId)) this.scheduleLogged(roomId);
  }

  private scheduleLogged(roomId: string): void {
    void this.schedule(roomId).catch((err: unknown) => this.deps.log.error({ err, roomId }, 'lab evaluation failed'));
  }

  /** The results of the next evaluation of the room (null when it has no lab). */
  schedule(roomId: string): Promise<LabResults | null> {
    let slot = this.slots.get(roomId);
    if (!slot) this.slots.set(roomId, (slot = { running: null, queued: null, lastStart: 0 }));
    const s = slot;
    if (s.queued) return s.queued;
    const queued = (s.running ?? Promise.resolve(null)).catch(() => null).then(async () => {
      const wait = s.lastStart + this.minIntervalMs - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await this.acquire();
      s.queued = null;
      s.lastStart = Date.now();
      const running = this.evaluate(roomId).finally(() => this.release());
      s.running = running;
      try {
        return await running;
      } finally {
        if (s.running === running) s.running = null;
        if (!s.running && !s.queued) this.slots.delete(roomId);
      }
    });
    s.queued = queued;
    return queued;
  }

  private async acquire(): Promise<void> {
    if (this.active < this.maxConcurrent) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }

  private async evaluate(roomId: string): Promise<LabResults | null> {
    // Loaded again if it was unloaded meanwhile (in scaled mode `rooms.get` would throw then).
    const room = await this.deps.rooms.load(roomId);
    const view = readLabView(room.doc);
    const lab = view ? this.catalog.get(view.id) : undefined;
    if (!lab) return null;
    const data = await this.gather(roomId, room.doc, lab);
    const results = evaluateLab(lab, data, Date.now());
    // The lab may have been replaced while the data was read: its results are then not written.
    const now = await this.deps.rooms.load(roomId);
    if (readLabView(now.doc)?.id !== lab.id) return null;
    await now.transact((doc) => writeLabResults(doc, results));
    return results;
  }

  /** The room's data the checks read, with the analyses of only the captures a lab capture matches. */
  private async gather(roomId: string, doc: Y.Doc, lab: Lab): Promise<LabRoomData> {
    const captures = readCaptures(doc);
    const documents = await this.deps.content.documents.list(roomId);
    const relevant = new Set<CaptureEntry>();
    for (const spec of lab.captures) {
      captures.filter((c) => c.status === 'done' && runsLabCapture(c, spec)).sort((a, b) => b.updatedAt - a.updatedAt).slice(0, CAPTURES_PER_SPEC).forEach((c) => relevant.add(c));
    }
    const ids = new Set([...relevant].map((c) => c.id));
    const analyses = new Map<string, Analysis>();
    for (const d of documents) {
      if (!d.captureId || !ids.has(d.captureId) || !LAYER_KINDS.has(d.kind)) continue;
      const a = await this.analysisOf(d);
      if (a) analyses.set(d.id, a);
    }
    const gates = new Map<string, GateReport | GateUnavailable>();
    const jobs = this.deps.jobs;
    if (jobs) {
      for (const c of relevant) {
        // A capture the queue no longer holds (a room imported from elsewhere) has no gate to give.
        if (!c.capture.includes('trace') || (await jobs.queue.get(c.id))?.roomId !== roomId) continue;
        try {
          gates.set(c.id, await captureGate({ ...this.deps, jobs }, roomId, c.id));
        } catch (e) {
          if (!(e instanceof GateUnavailableError)) throw e;
          gates.set(c.id, { captureId: c.id, reason: e.reason, message: e.message });
        }
      }
    }
    return { captures, documents, analysisOf: (id) => analyses.get(id), annotations: readAnnotations(doc), gates };
  }

  private async analysisOf(d: DocumentMeta): Promise<Analysis | undefined> {
    const cached = this.analyses.get(d.sha256);
    if (cached) return cached;
    const gz = await this.deps.content.documents.analysisGzip(d.sha256);
    if (!gz) return undefined;
    const a = JSON.parse((await gunzipAsync(gz)).toString('utf8')) as Analysis;
    this.analyses.set(d.sha256, a);
    if (this.analyses.size > ANALYSIS_CACHE) this.analyses.delete(this.analyses.keys().next().value as string);
    return a;
  }
}
