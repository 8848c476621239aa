import { canAnnotate, RoomKey, setResolved, SettingKey, type Annotation, type AnnotationKind, type DocumentMeta, type Role, type TraceAnchor } from '@seam/shared/model';
import type { RoomApi } from '../room/api';
import type { Identity } from '../room/identity';
import * as store from '../collab/annotation-store';
import { participants as listParticipants, readPresence, type HoveredLine, type Participant, type PresenceState, type PresenterView, type Spotlight, type TraceFollow } from '../collab/presence';
import { saveState, type SaveState } from '../collab/save-tracker';
import { watchAnnotations } from '../collab/annotation-index';
import { RoomSession, type SessionStatus } from '../collab/session';
import { Throttle } from '../collab/throttle';
import { equalityDeep } from 'lib0/function';
import { rewrite, unsavedChanges, type UnsavedChange } from '../collab/unsaved';
import type { RemoteSelection } from '../editor/remote-selections';
import { DocumentsState } from './documents.svelte';
import type { UploadItem } from './upload-item';

/** The shortest gap between two awareness updates this client sends (the server allows 50 per second). */
export const AWARENESS_INTERVAL_MS = 50;

/**
 * The shortest gap between two reads of everyone's presence (the participant list, remote carets):
 * forty people moving their carets redraw the editor ten times a second, not at each of their
 * updates, and every redraw repaints each coloured token in view (docs/benchmarks.md). The
 * presenter's view, hover and spotlight are read at once.
 */
export const PRESENCE_READ_MS = 100;

/** Who presents, as the room document's `presenter` map holds it. */
export interface Presenter {
  readonly clientId: number;
  readonly userId: string;
  readonly name: string;
  readonly color: string;
}

/**
 * Everything one person sees of a room: role, documents, annotations, participants, presenter,
 * and the save state; every write goes through the room document (or the HTTP API for dumps).
 */
export class RoomState {
  role = $state<Role | null>(null);
  title = $state('');
  error = $state<string | null>(null);
  annotations = $state.raw<Annotation[]>([]);
  participants = $state.raw<Participant[]>([]);
  locked = $state(false);
  /** The presenter as the room document names them, whether or not they are still connected. */
  private named = $state.raw<Presenter | null>(null);
  private onlineClients = $state.raw<ReadonlySet<number>>(new Set());
  /** Who presents, only while they are in the room: a presenter who left leads no one. */
  readonly presenter: Presenter | null = $derived(this.named && this.onlineClients.has(this.named.clientId) ? this.named : null);
  presenterView = $state.raw<PresenterView | null>(null);
  spotlight = $state.raw<Spotlight | null>(null);
  /** The line the presenter points at in an IR view. */
  presenterHover = $state.raw<HoveredLine | null>(null);
  remoteSelections = $state.raw<(RemoteSelection & { docId: string })[]>([]);
  private followingNow = $state(true);
  /** Whether this person follows the presenter; the room is told (the owner's class panel lists who follows). */
  get following(): boolean {
    return this.followingNow;
  }
  set following(v: boolean) {
    if (v === this.followingNow) return;
    this.followingNow = v;
    this.publish({ following: v });
  }
  status = $state.raw<SessionStatus>({ connected: false, synced: false, refused: null, waiting: 0, localLoaded: false });
  online = $state(typeof navigator === 'undefined' ? true : navigator.onLine);
  selectedAnnotation = $state<string | null>(null);
  readonly docs: DocumentsState;
  /** The live connection; replaced by a fresh one when the server refuses a local change. */
  session = $state.raw<RoomSession | null>(null);
  /**
   * The last refusal this person was told about: the reason code, when it came, and what the reload
   * lost (`null` until the fresh replica has synced), less what the person has written again since.
   */
  refusal = $state.raw<{ readonly reason: string; readonly at: number; readonly unsaved: readonly UnsavedChange[] | null } | null>(null);
  private recovering = false;
  private destroyed = false;

  readonly canWrite = $derived(this.role !== null && canAnnotate(this.role, this.locked));
  readonly isOwner = $derived(this.role === 'owner');
  readonly save: SaveState = $derived(saveState({ ...this.status, online: this.online }, this.status.waiting));
  readonly presenting = $derived(this.presenter !== null && this.session !== null && this.presenter.clientId === this.session.doc.clientID);
  /** The local person as the room sees them; `setIdentity` changes it. */
  me = $state<Identity>({ id: '', name: '', color: '' });
  readonly followTarget = $derived(this.following && this.presenter && !this.presenting ? this.presenterView : null);

  constructor(
    private readonly api: RoomApi,
    private readonly wsBase: string,
    readonly roomId: string,
    readonly token: string,
    me: Identity,
  ) {
    this.me = me;
    this.docs = new DocumentsState(api, roomId, token);
  }

  /**
   * Takes a new name and colour for this person: presence is republished at once and later
   * annotations and replies carry it; annotations already written keep their recorded author.
   */
  setIdentity(next: Identity): void {
    this.me = next;
    this.publish({});
    const s = this.session;
    if (!s || !this.presenting) return;
    // Followers' banner reads the presenter's name from the room document, not from presence.
    const m = s.doc.getMap<unknown>(RoomKey.presenter);
    s.doc.transact(() => {
      m.set('name', next.name);
      m.set('color', next.color);
    });
  }

  /** Loads the room over HTTP, then connects; a bad link ends in `error`. */
  async start(): Promise<void> {
    try {
      const info = await this.api.room(this.roomId, this.token);
      this.role = info.role;
      this.title = info.title;
      this.docs.setListed(info.documents);
      this.locked = info.settings?.[SettingKey.locked] === true;
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
      return;
    }
    window.addEventListener('online', this.onOnline);
    window.addEventListener('offline', this.onOnline);
    this.connect();
  }

  private connect(): RoomSession {
    const s = new RoomSession(
      this.wsBase,
      this.roomId,
      this.token,
      (st) => {
        if (this.session === s) this.status = st;
      },
      (reason) => void this.recover(reason),
    );
    this.session = s;
    this.observe(s);
    this.publish({});
    return s;
  }

  /**
   * Recovers from a refused update: tells the person why, drops the replica that holds the refused
   * change (and its IndexedDB copy), and resyncs a fresh one from the server, so that later writes
   * land and the save indicator counts only changes the server can still accept. Later refusals of
   * the same replica (each following update is refused as a `gap`) are covered by the same recovery.
   * Once the fresh replica has synced, the old one is compared with it: what the server never got
   * is listed in `refusal.unsaved`, with the text of every annotation, reply and edit.
   */
  private async recover(reason: string): Promise<void> {
    const old = this.session;
    if (this.recovering || !old) return;
    this.recovering = true;
    const at = Date.now();
    this.refusal = { reason, at, unsaved: null };
    this.session = null;
    this.status = { connected: false, synced: false, refused: null, waiting: 0, localLoaded: false };
    let replica;
    try {
      replica = await old.discard();
    } finally {
      this.recovering = false;
    }
    if (this.destroyed) return replica.destroy();
    const fresh = this.connect();
    await fresh.whenSynced();
    const unsaved = unsavedChanges(replica, fresh.doc);
    replica.destroy();
    if (this.refusal?.at === at) this.refusal = { ...this.refusal, unsaved };
  }

  /** Writes an annotation, reply or edit that a refusal cost again, and takes it off the list; false when it cannot be. */
  writeAgain(change: UnsavedChange): boolean {
    const s = this.session;
    const r = this.refusal;
    if (!s || !r?.unsaved || !this.canWrite || !rewrite(s.doc, change)) return false;
    this.refusal = { ...r, unsaved: r.unsaved.filter((c) => c !== change) };
    return true;
  }

  private observe(s: RoomSession): void {
    const doc = s.doc;
    watchAnnotations(doc, (list) => (this.annotations = list));
    const settings = doc.getMap<unknown>(RoomKey.settings);
    const readSettings = () => {
      if (settings.has(SettingKey.locked)) this.locked = settings.get(SettingKey.locked) === true;
      const t = settings.get(SettingKey.title);
      if (typeof t === 'string' && t.trim()) this.title = t;
    };
    settings.observe(readSettings);
    readSettings();
    const presenter = doc.getMap<unknown>(RoomKey.presenter);
    const readPresenter = () => {
      const clientId = presenter.get('clientId');
      this.named =
        typeof clientId === 'number'
          ? { clientId, userId: String(presenter.get('userId') ?? ''), name: String(presenter.get('name') ?? ''), color: String(presenter.get('color') ?? '') }
          : null;
      if (this.named && this.named.clientId !== s.doc.clientID) this.following = true;
      this.readAwareness();
    };
    presenter.observe(readPresenter);
    readPresenter();
    const documents = doc.getMap<unknown>(RoomKey.documents);
    documents.observe(() => this.docs.setLive(documents.toJSON() as Record<string, DocumentMeta>));
    s.provider.awareness.on('change', (ch: { added: number[]; updated: number[]; removed: number[] }) => {
      const named = this.named?.clientId;
      if (named !== undefined && (ch.updated.includes(named) || ch.added.includes(named) || ch.removed.includes(named))) this.readPresenterState();
      this.presenceRead.request();
    });
  }

  /** The browser's own network state drives the socket: offline work waits in IndexedDB, and syncs on return. */
  private readonly onOnline = () => {
    this.online = navigator.onLine;
    const p = this.session?.provider;
    if (!p || this.status.refused) return;
    if (this.online) p.connect();
    else p.disconnect();
  };

  private readonly presenceRead = new Throttle(PRESENCE_READ_MS, () => this.readAwareness());

  /** Reads everyone's presence: the participants, their carets, and the presenter's state. */
  private readAwareness(): void {
    const s = this.session;
    if (!s) return;
    const states = s.provider.awareness.getStates();
    this.participants = listParticipants(states, s.doc.clientID);
    this.onlineClients = new Set(states.keys());
    const remote: (RemoteSelection & { docId: string })[] = [];
    for (const [clientId, raw] of states) {
      if (clientId === s.doc.clientID) continue;
      const p = readPresence(raw);
      if (p?.dumpSel) remote.push({ clientId, name: p.user.name, color: p.user.color, docId: p.dumpSel.docId, anchor: p.dumpSel.anchor, head: p.dumpSel.head });
    }
    this.remoteSelections = remote;
    this.readPresenterState();
  }

  /** Reads what followers track of the presenter: view, hovered line and spotlight. */
  private readPresenterState(): void {
    const states = this.session?.provider.awareness.getStates();
    const p = this.named ? readPresence(states?.get(this.named.clientId)) : null;
    // A new view only when the presenter moved: each one scrolls the followers' editors, and one
    // landing as a follower scrolls away would pull them back.
    const v = p?.view ?? null;
    if (!equalityDeep(v, this.presenterView)) this.presenterView = v;
    const h = p?.irHover ?? null;
    if (h?.docId !== this.presenterHover?.docId || h?.line !== this.presenterHover?.line) this.presenterHover = h;
    if (p?.spotlight && p.spotlight.at !== this.spotlight?.at) this.spotlight = p.spotlight;
  }

  private pending: Partial<Omit<PresenceState, 'user' | 'role'>> = {};
  private readonly publishing = new Throttle(AWARENESS_INTERVAL_MS, () => this.flush());

  /**
   * Merges fields into this person's awareness state. Sends at most one awareness update per
   * `AWARENESS_INTERVAL_MS` (the last one always goes out), well under the server's rate limit,
   * however fast the person scrolls.
   */
  publish(fields: Partial<Omit<PresenceState, 'user' | 'role'>>): void {
    this.pending = { ...this.pending, ...fields };
    this.publishing.request();
  }

  private flush(): void {
    const a = this.session?.provider.awareness;
    if (!a || !this.role) return;
    const fields = this.pending;
    this.pending = {};
    const prev = a.getLocalState() ?? {};
    const user = { id: this.me.id, name: this.me.name, color: this.me.color, colorLight: `${this.me.color}33` };
    const next = { docId: this.docs.openId, dumpSel: null, view: null, spotlight: null, following: this.followingNow, ...prev, ...fields, user, role: this.role };
    // Scrolling reports the same selection at every frame; a state that says nothing new is not
    // sent to everyone (awareness renews a standing state by itself every 15 s).
    if (!equalityDeep(prev, next)) a.setLocalState(next);
  }

  /** The open dump's last reported view: followers get it as soon as presenting begins, not at the next scroll. */
  private lastView: { readonly docId: string; readonly topLine: () => number; readonly anchor: number; readonly head: number } | null = null;

  /** The last line counted by `cursorLine`: a cursor that moves is counted from there. */
  private counted = { docId: '', offset: 0, line: 1 };

  /** The 1-based line at offset `head` of the open dump, counted from the last one (scrolling, which keeps the cursor, counts nothing). */
  private cursorLine(docId: string, head: number): number | null {
    const t = this.docs.openText;
    if (t?.state !== 'ready' || t.docId !== docId || head < 0 || head > t.text.length) return null;
    const c = this.counted.docId === docId ? this.counted : { docId, offset: 0, line: 1 };
    const [from, to] = head >= c.offset ? [c.offset, head] : [head, c.offset];
    let breaks = 0;
    for (let i = t.text.indexOf('\n', from); i !== -1 && i < to; i = t.text.indexOf('\n', i + 1)) breaks++;
    this.counted = { docId, offset: head, line: head >= c.offset ? c.line + breaks : c.line - breaks };
    return this.counted.line;
  }

  /** The view this person last sent or is about to send. */
  private sentView(): PresenterView | null {
    const v = 'view' in this.pending ? this.pending.view : (this.session?.provider.awareness.getLocalState() as { view?: unknown } | null)?.view;
    return (v as PresenterView | null | undefined) ?? null;
  }

  /**
   * Opens a document (or the notes with `'notes'`) and tells the room where this person is. A
   * presenter's followers are sent the document at once (its first line until its view reports,
   * which a document without an editor never does); a split view sends its own panes.
   */
  open(docId: string): void {
    this.docs.open(docId);
    const lead = this.presenting && !this.sentView()?.split && this.sentView()?.docId !== docId;
    this.publish({ docId, dumpSel: null, line: null, ...(lead ? { view: { docId, topLine: 1, anchor: 0, head: 0 } } : {}) });
  }

  /**
   * Opens a document this person chose (from the list, an annotation, a capture, an upload): that
   * stops following, or the presenter's document would be opened again at once.
   */
  openChosen(docId: string): void {
    this.following = false;
    this.open(docId);
  }

  /** Uploads dumps and traces and opens the last one (see `openChosen`). */
  async upload(files: readonly UploadItem[]): Promise<void> {
    const last = await this.docs.upload(files);
    if (last) this.openChosen(last);
  }

  /** Reports this person's view; presenters also drive followers with it (only they read the top line). */
  reportView(topLine: () => number, anchor: number, head: number): void {
    const docId = this.docs.openId;
    if (!docId) return;
    this.lastView = { docId, topLine, anchor, head };
    this.publish({
      dumpSel: { docId, anchor, head },
      line: this.cursorLine(docId, head),
      view: this.presenting ? { docId, topLine: topLine(), anchor, head } : null,
    });
  }

  private author() {
    return { id: this.me.id, name: this.me.name, color: this.me.color };
  }

  /** Marks `[from, to)` of the open dump (or of `docId`, a split-view pane); returns the new annotation id, or null when not allowed. */
  annotate(kind: AnnotationKind, from: number, to: number, body: string, quoteText: { prefix: string; exact: string; suffix: string }, docId = this.docs.openId): string | null {
    const s = this.session;
    if (!s || !docId || !this.canWrite || to <= from) return null;
    return store.addAnnotation(s.doc, { docId, from, to, quote: quoteText, kind, body, author: this.author() });
  }

  /** Marks an op or a time range of the open trace; returns the new annotation id, or null when not allowed. */
  annotateTrace(kind: AnnotationKind, body: string, trace: TraceAnchor): string | null {
    const s = this.session;
    const docId = this.docs.openId;
    if (!s || !docId || !this.canWrite) return null;
    return store.addAnnotation(s.doc, { docId, from: 0, to: 0, quote: { prefix: '', exact: '', suffix: '' }, kind, body, author: this.author(), trace });
  }

  /** Reports the open trace's visible and selected time ranges; presenters drive followers with them (sent throttled, like the scroll). */
  reportTraceView(trace: TraceFollow): void {
    const docId = this.docs.openId;
    if (!docId) return;
    this.publish({ dumpSel: null, view: this.presenting ? { docId, topLine: 0, anchor: 0, head: 0, trace } : null });
  }

  /** Replies to an annotation's thread. */
  reply(id: string, body: string): void {
    if (this.session && this.canWrite) store.addReply(this.session.doc, id, body, this.author());
  }

  /** Resolves or reopens a thread. */
  setResolved(id: string, resolved: boolean): void {
    if (this.session && this.canWrite) setResolved(this.session.doc, id, resolved);
  }

  /** Edits one's own comment, or one's own reply with `replyId`. */
  edit(id: string, body: string, replyId?: string): void {
    if (this.session && this.canWrite) store.editBody(this.session.doc, id, body, replyId);
  }

  /** Deletes one's own annotation, or one's own reply with `replyId`. */
  remove(id: string, replyId?: string): void {
    if (this.session && this.canWrite) store.remove(this.session.doc, id, replyId);
  }

  /** Starts presenting (owner only). */
  present(): void {
    const s = this.session;
    if (!s || !this.isOwner) return;
    const m = s.doc.getMap<unknown>(RoomKey.presenter);
    s.doc.transact(() => {
      m.set('clientId', s.doc.clientID);
      m.set('userId', this.me.id);
      m.set('name', this.me.name);
      m.set('color', this.me.color);
      m.set('since', Date.now());
    });
    // Followers go to the presenter's document, line and selection now, not at the next scroll. A
    // trace or a split view sends its own view as presenting begins (in the effects this change
    // runs before the task below), and theirs is kept.
    queueMicrotask(() => {
      const docId = this.docs.openId;
      if (!docId || !this.presenting || this.sentView()) return;
      const last = this.lastView?.docId === docId ? this.lastView : null;
      this.publish({ view: { docId, topLine: last ? last.topLine() : 1, anchor: last?.anchor ?? 0, head: last?.head ?? 0 } });
    });
  }

  /** Stops presenting. */
  stopPresenting(): void {
    const s = this.session;
    if (!s || !this.isOwner) return;
    const m = s.doc.getMap<unknown>(RoomKey.presenter);
    s.doc.transact(() => {
      for (const k of [...m.keys()]) m.delete(k);
    });
    this.publish({ view: null });
  }

  /** Spotlights a range of the open dump (or of `docId`, a split-view pane) for everyone (presenter only). */
  spotlightRange(from: number, to: number, docId = this.docs.openId): void {
    if (!this.presenting || !docId || to <= from) return;
    this.publish({ spotlight: { docId, from, to, at: Date.now() } });
  }

  /** Renames the room for everyone (owner only); blank titles are ignored. */
  rename(title: string): void {
    const s = this.session;
    const t = title.replace(/\s+/g, ' ').trim().slice(0, 200);
    if (!s || !this.isOwner || !t) return;
    s.doc.getMap<unknown>(RoomKey.settings).set(SettingKey.title, t);
  }

  /** Locks or unlocks the room (owner only). */
  setLocked(locked: boolean): void {
    const s = this.session;
    if (!s || !this.isOwner) return;
    s.doc.getMap<unknown>(RoomKey.settings).set(SettingKey.locked, locked);
  }

  /** Leaves the room: stops syncing and listening; the IndexedDB copy stays. */
  destroy(): void {
    this.destroyed = true;
    this.publishing.cancel();
    this.presenceRead.cancel();
    window.removeEventListener('online', this.onOnline);
    window.removeEventListener('offline', this.onOnline);
    this.session?.destroy();
    this.session = null;
  }
}
