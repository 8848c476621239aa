import { ANSWER_KEY_HEADER, type DrillClassView, type DrillEntry, type DrillMineView, type StartDrillBody } from '@seam/shared/teaching';
import { failure } from '../../room/api';

/** The drill endpoints of one room (docs/teaching.md), with the room token in the Authorization header. */
export class DrillApi {
  constructor(
    private readonly roomId: string,
    private readonly token: string,
    private readonly fetcher: typeof fetch = (...a) => fetch(...a),
  ) {}

  private base(path = ''): string {
    return `/api/rooms/${encodeURIComponent(this.roomId)}/drills${path}`;
  }

  private async call<T>(method: string, path: string, json?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const res = await this.fetcher(this.base(path), {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(json !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
    });
    if (!res.ok) throw await failure(res);
    return (await res.json()) as T;
  }

  /** Starts a drill (owner). */
  start(body: StartDrillBody): Promise<DrillEntry> {
    return this.call('POST', '', body);
  }

  /** Answers one question under `key`; a second answer replaces the first. */
  answer(drillId: string, questionId: string, answer: string, name: string, key: string): Promise<unknown> {
    return this.call('POST', `/${encodeURIComponent(drillId)}/answers`, { questionId, answer, name, key });
  }

  /** This person's answers (verdicts once revealed). */
  mine(drillId: string, key: string): Promise<DrillMineView> {
    return this.call('GET', `/${encodeURIComponent(drillId)}/answers/mine`, undefined, { [ANSWER_KEY_HEADER]: key });
  }

  /** Reveals the answers and tally to the room (owner). */
  reveal(drillId: string): Promise<DrillEntry> {
    return this.call('POST', `/${encodeURIComponent(drillId)}/reveal`);
  }

  /**
   * The class's answers as they arrive (owner): an event stream whose `answers` events each carry
   * the whole `DrillClassView`. EventSource cannot set headers, so the token goes in the query.
   */
  watch(drillId: string, onView: (v: DrillClassView) => void): () => void {
    const source = new EventSource(`${this.base(`/${encodeURIComponent(drillId)}/events`)}?token=${encodeURIComponent(this.token)}`);
    source.addEventListener('answers', (e) => onView(JSON.parse((e as MessageEvent<string>).data) as DrillClassView));
    return () => source.close();
  }
}
