import * as Y from 'yjs';
import { parseArgSpec, RoomKey, type ArgSpec } from '@seam/shared/model';
import { readLabResults, readLabView, type LabResults, type LabView } from '@seam/shared/teaching';
import { CaptureApi } from '../../capture/capture-api';
import type { RoomState } from '../../state/room.svelte';
import { LabApi } from './lab-api';
import { stepRows, type StepRow } from './lab-progress';

/**
 * The room's lab as one person sees it: the lab the room was opened from and its latest results
 * (both from the room document's `lab` key), its steps read for this person, and its captures to
 * run. Create it during a component's setup: it watches the room with effects.
 */
export class LabState {
  view = $state.raw<LabView | null>(null);
  results = $state.raw<LabResults | null>(null);
  /** The room's program texts by name, as the class may have edited them. */
  programs = $state.raw<Readonly<Record<string, string>>>({});
  /** The last request's failure, as the server said it. */
  error = $state<string | null>(null);
  /** The lab capture being queued, if any. */
  running = $state<string | null>(null);
  readonly rows: readonly StepRow[];
  private readonly labs = new LabApi();
  private readonly captures: CaptureApi;

  constructor(private readonly room: RoomState, private readonly roomId: string, private readonly token: string) {
    this.captures = new CaptureApi(roomId, token);
    this.rows = $derived(this.view ? stepRows(this.view, this.results, room.me.id) : []);
    $effect(() => {
      const s = room.session;
      if (!s) return;
      const m = s.doc.getMap(RoomKey.lab);
      const read = () => {
        this.view = readLabView(s.doc);
        this.results = readLabResults(s.doc);
      };
      m.observe(read);
      read();
      return () => m.unobserve(read);
    });
    $effect(() => {
      const s = room.session;
      if (!s) return;
      const m = s.doc.getMap<unknown>(RoomKey.programs);
      const read = () => {
        const out: Record<string, string> = {};
        m.forEach((v, k) => {
          if (v instanceof Y.Text) out[k] = v.toString();
        });
        this.programs = out;
      };
      m.observeDeep(read);
      read();
      return () => m.unobserveDeep(read);
    });
    // Once per lab seen: asks the server to evaluate, which also has it follow the room's changes again.
    $effect(() => {
      if (this.view?.id) void this.check();
    });
  }

  /** Asks for an evaluation now; the results arrive through the room document too. */
  async check(): Promise<void> {
    try {
      this.results = await this.labs.check(this.roomId, this.token);
      this.error = null;
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
  }

  /** Queues lab capture `id` with the room's current text of its program (which the class may have edited). */
  async run(id: string): Promise<void> {
    const c = this.view?.captures.find((x) => x.id === id);
    const program = c ? this.programs[c.program] : undefined;
    if (!c || program === undefined) {
      this.error = `the room has no program ${c?.program ?? id}`;
      return;
    }
    const args: ArgSpec[] = [];
    for (const a of c.args) {
      const spec = parseArgSpec(a);
      if ('error' in spec) {
        this.error = spec.error;
        return;
      }
      args.push(spec);
    }
    this.running = id;
    try {
      await this.captures.request({
        program, entry: c.entry, args, capture: [...c.capture],
        options: { xlaFlags: c.xlaFlags, timeoutS: c.timeoutS },
      });
      this.error = null;
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    } finally {
      this.running = null;
    }
  }
}
