import { readDrills, drillsMap, type DrillAsk, type DrillClassView, type DrillEntry, type DrillMineView } from '@seam/shared/teaching';
import type { RoomState } from '../../state/room.svelte';
import { answerKey } from './answer-key';
import { DrillApi } from './drill-api';

/** Where a question's typed answer is kept: per drill, so a new drill starts with empty boxes. */
export const draftKey = (drillId: string, questionId: string): string => `${drillId}/${questionId}`;

/**
 * The room's drill as one person sees it: the newest drill's questions (from the room document),
 * this person's answers, and for the owner the class's answers as they arrive. Create it during a
 * component's setup: it watches the room with effects.
 */
export class DrillState {
  /** Every drill of the room, newest first. */
  drills = $state.raw<readonly DrillEntry[]>([]);
  /** This person's answers to the current drill, as the server has them. */
  mine = $state.raw<DrillMineView | null>(null);
  /** What is typed in each question's box, by drill and question id (`draftKey`). */
  drafts = $state<Record<string, string>>({});
  /** The class's answers (owner only), live. */
  classView = $state.raw<DrillClassView | null>(null);
  /** The last request's failure, as the server said it. */
  error = $state<string | null>(null);
  busy = $state(false);
  /** The drill shown: the newest. */
  readonly current: DrillEntry | null;
  /** Its id: what the owner's event stream follows (a reveal changes the entry, not the drill). */
  readonly currentId: string | null;
  private readonly api: DrillApi;
  private readonly key: string;

  constructor(
    private readonly room: RoomState,
    roomId: string,
    token: string,
    storage: Pick<Storage, 'getItem' | 'setItem'> = localStorage,
  ) {
    this.api = new DrillApi(roomId, token);
    this.key = answerKey(storage, roomId);
    this.current = $derived(this.drills[0] ?? null);
    this.currentId = $derived(this.current?.id ?? null);
    $effect(() => {
      const s = room.session;
      if (!s) return;
      const m = drillsMap(s.doc);
      const read = () => (this.drills = readDrills(s.doc));
      m.observe(read);
      read();
      return () => m.unobserve(read);
    });
    // This person's answers, again when the drill changes or is revealed (the verdicts come then).
    $effect(() => {
      const d = this.current;
      const revealed = d?.revealed !== undefined;
      if (!d) return;
      void revealed;
      void this.loadMine(d.id);
    });
    $effect(() => {
      const id = this.currentId;
      if (!id || !room.isOwner) {
        this.classView = null;
        return;
      }
      return this.api.watch(id, (v) => {
        if (v.drillId === this.currentId) this.classView = v;
      });
    });
  }

  private async loadMine(drillId: string): Promise<void> {
    try {
      const m = await this.api.mine(drillId, this.key);
      if (m.drillId === this.currentId) this.mine = m;
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
    }
  }

  private async run(fn: () => Promise<unknown>): Promise<boolean> {
    this.busy = true;
    this.error = null;
    try {
      await fn();
      return true;
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
      return false;
    } finally {
      this.busy = false;
    }
  }

  /** Starts a drill of `count` questions on `docId` (owner). */
  start(docId: string, count: number, asks?: readonly DrillAsk[]): Promise<boolean> {
    return this.run(() => this.api.start({ docId, count, ...(asks ? { asks: [...asks] } : {}) }));
  }

  /** Sends what is typed for `questionId` as this person's answer. */
  async submit(questionId: string): Promise<void> {
    const d = this.current;
    if (!d) return;
    const text = this.drafts[draftKey(d.id, questionId)] ?? '';
    if (await this.run(() => this.api.answer(d.id, questionId, text, this.room.me.name, this.key))) await this.loadMine(d.id);
  }

  /** Reveals the current drill's answers to the room (owner). */
  reveal(): Promise<boolean> {
    const d = this.current;
    return d ? this.run(() => this.api.reveal(d.id)) : Promise.resolve(false);
  }

  /** This person's answer to `questionId`, as sent. */
  myAnswer(questionId: string): DrillMineView['answers'][number] | undefined {
    if (this.mine?.drillId !== this.currentId) return undefined;
    return this.mine?.answers.find((a) => a.questionId === questionId);
  }
}
