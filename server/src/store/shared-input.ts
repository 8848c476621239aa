import { AnalysisPart } from '@seam/shared/ir';
import { DocumentMetaSchema, ROLES, type DocumentMeta, type Role } from '@seam/shared/model';
import type { StoredAnswer, StoredDrill } from '../teaching/drill-store';
import type { HistoryCursor, HistoryLimits } from '../teaching/replay/history-store';
import type { StoredTrace } from '../trace/stored-form';
import type { TracePart } from '../trace/store';
import type { StoredBlob } from './documents-store';
import type { InvitationRow } from './invitations-store';
import type { RoomRow } from './rooms-store';
import { StoreInputError } from './store-errors';
import type { SharedStore } from './shared-store';
import type { RoomBatch } from './updates-store';

/** Longest room id the shared store accepts (today's ids are 16 characters). */
export const MAX_ROOM_ID = 128;

/** Throws `StoreInputError` unless `id` is a non-empty string of at most `MAX_ROOM_ID` characters without NUL (which PostgreSQL's text cannot hold). */
export function checkRoomId(id: unknown): asserts id is string {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ROOM_ID || id.includes('\0')) {
    throw new StoreInputError(`room id must be 1–${MAX_ROOM_ID} characters without NUL, got ${JSON.stringify(String(id)).slice(0, 80)}`);
  }
}

/** Throws `StoreInputError` unless `text` is a string without NUL. */
export function checkText(what: string, text: unknown): asserts text is string {
  if (typeof text !== 'string' || text.includes('\0')) throw new StoreInputError(`${what} must be text without NUL`);
}

/** Throws `StoreInputError` unless `n` is a safe integer of at least `min`. */
export function checkInteger(what: string, n: unknown, min: number): asserts n is number {
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < min) throw new StoreInputError(`${what} must be an integer ≥ ${min}, got ${String(n)}`);
}

/** Throws `StoreInputError` unless `bytes` is a non-empty `Uint8Array` (an empty Yjs update is not an update). */
export function checkBytes(what: string, bytes: unknown): asserts bytes is Uint8Array {
  if (!(bytes instanceof Uint8Array) || bytes.length === 0) throw new StoreInputError(`${what} must be non-empty bytes`);
}

/** Checks a group commit: an array of batches, each a valid room id and a non-empty array of non-empty updates. */
export function checkBatches(batches: unknown): asserts batches is readonly RoomBatch[] {
  if (!Array.isArray(batches)) throw new StoreInputError('batches must be an array');
  for (const [i, b] of batches.entries()) {
    if (typeof b !== 'object' || b === null) throw new StoreInputError(`batch ${i} is not an object`);
    const { roomId, updates } = b as { roomId?: unknown; updates?: unknown };
    checkRoomId(roomId);
    if (!Array.isArray(updates) || updates.length === 0) throw new StoreInputError(`batch ${i} (room ${roomId}) has no updates`);
    for (const [j, u] of updates.entries()) checkBytes(`update ${j} of batch ${i}`, u);
  }
}

/** Checks a new room and its token hashes: one SHA-256 (32 bytes) per role, nothing else. */
export function checkNewRoom(room: unknown, hashes: unknown): asserts room is RoomRow {
  if (typeof room !== 'object' || room === null) throw new StoreInputError('room must be an object');
  const { id, title, createdAt } = room as Partial<RoomRow>;
  checkRoomId(id);
  checkText('room title', title);
  checkInteger('room createdAt', createdAt, 0);
  if (typeof hashes !== 'object' || hashes === null) throw new StoreInputError('token hashes must be an object');
  const roles = Object.keys(hashes).sort();
  if (roles.join() !== [...ROLES].sort().join()) throw new StoreInputError(`token hashes must name exactly the roles ${ROLES.join(', ')}`);
  for (const role of ROLES) checkHash(`token hash of ${role}`, (hashes as Record<Role, unknown>)[role]);
}

/** Throws `StoreInputError` unless `hash` is 32 bytes. */
export function checkHash(what: string, hash: unknown): asserts hash is Buffer {
  if (!(hash instanceof Uint8Array) || hash.length !== 32) throw new StoreInputError(`${what} must be 32 bytes (a SHA-256)`);
}

/** Throws `StoreInputError` unless `role` is one of the roles. */
export function checkRole(role: unknown): asserts role is Role {
  if (!ROLES.includes(role as Role)) throw new StoreInputError(`role must be one of ${ROLES.join(', ')}`);
}

/**
 * Largest value the shared store keeps in one row (an analysis part, a trace part or block, an
 * overview): 256 MiB, a quarter of what PostgreSQL's `bytea` and one protocol message can hold.
 * A blob's text and whole analysis are stored in chunks (`postgres/documents.ts`) and have no bound
 * here beyond what one Node.js buffer holds.
 */
export const MAX_ROW_VALUE_BYTES = 256 * 1024 * 1024;

/** Longest presenter sample (its JSON, in UTF-8 bytes) the history keeps: 64 KiB, four times an awareness state's default bound. */
export const MAX_PRESENTER_BYTES = 64 * 1024;

/** Throws `StoreInputError` unless `sha256` is 64 lowercase hex digits (the key of blobs and traces). */
export function checkSha256(sha256: unknown): asserts sha256 is string {
  if (typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256)) throw new StoreInputError(`sha256 must be 64 lowercase hex digits, got ${JSON.stringify(String(sha256)).slice(0, 80)}`);
}

/** Throws `StoreInputError` unless `bytes` is gzip (its magic number first) of at most `max` bytes: stored bodies are served as they are. */
export function checkGzip(what: string, bytes: unknown, max: number = MAX_ROW_VALUE_BYTES): asserts bytes is Uint8Array {
  if (!(bytes instanceof Uint8Array) || bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) throw new StoreInputError(`${what} must be gzip`);
  if (bytes.length > max) throw new StoreInputError(`${what} is ${bytes.length} bytes, over the ${max} one value may hold`);
}

/** Throws `StoreInputError` unless `value` is a number (±Infinity allowed, as an open end of a window), not NaN. */
function checkNumber(what: string, value: unknown): asserts value is number {
  if (typeof value !== 'number' || Number.isNaN(value)) throw new StoreInputError(`${what} must be a number`);
}

/** Whether any string in `value` (an object's keys and values, deeply) holds a NUL, which PostgreSQL's text cannot. */
function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(([k, v]) => k.includes('\0') || hasNul(v));
}

/** Checks a document's metadata: `DocumentMetaSchema`, a non-empty id, a sha256, integer bytes and time, no NUL anywhere. */
export function checkDocumentMeta(meta: unknown): asserts meta is DocumentMeta {
  const parsed = DocumentMetaSchema.safeParse(meta);
  if (!parsed.success) throw new StoreInputError(`document metadata is malformed: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  const m = meta as DocumentMeta;
  checkText('document id', m.id);
  if (m.id.length === 0) throw new StoreInputError('document id must not be empty');
  checkSha256(m.sha256);
  checkInteger('document bytes', m.bytes, 0);
  checkInteger('document createdAt', m.createdAt, 0);
  if (hasNul(meta)) throw new StoreInputError('document metadata must hold no NUL');
}

/** Checks a blob's analysis parts: exactly the `AnalysisPart`s, each gzip. */
export function checkAnalysisParts(parts: unknown): asserts parts is Readonly<Record<AnalysisPart, Uint8Array>> {
  checkObject('analysis parts', parts);
  const names = Object.keys(parts as object).sort();
  if (names.join() !== Object.values(AnalysisPart).sort().join()) throw new StoreInputError(`analysis parts must be exactly ${Object.values(AnalysisPart).join(', ')}`);
  for (const name of names) checkGzip(`analysis part ${name}`, (parts as Record<string, unknown>)[name]);
}

/** Checks a blob's bodies: gzip of the text and of the analysis (chunked, so only Node's buffer bounds them), and its parts when given. */
export function checkStoredBlob(blob: unknown): asserts blob is StoredBlob {
  checkObject('blob', blob);
  const { gzip, analysisGzip, parts } = blob as Partial<StoredBlob>;
  checkGzip('blob text', gzip, Number.MAX_SAFE_INTEGER);
  checkGzip('blob analysis', analysisGzip, Number.MAX_SAFE_INTEGER);
  if (parts !== undefined) checkAnalysisParts(parts);
}

/** Checks the part named: one of the `AnalysisPart`s. */
function checkAnalysisPart(part: unknown): asserts part is AnalysisPart {
  if (!(Object.values(AnalysisPart) as unknown[]).includes(part)) throw new StoreInputError(`analysis part must be one of ${Object.values(AnalysisPart).join(', ')}`);
}

const TRACE_PARTS: readonly TracePart[] = ['summary', 'ops', 'strings'];

/** Checks a reduced trace as stored: gzip parts and overview, and blocks each named once by (track, block), with a span. */
export function checkStoredTrace(t: unknown): asserts t is StoredTrace {
  checkObject('stored trace', t);
  const { summary, ops, strings, overview, blocks } = t as Partial<StoredTrace>;
  checkGzip('trace summary', summary);
  checkGzip('trace ops', ops);
  checkGzip('trace strings', strings);
  checkGzip('trace overview', overview);
  if (!Array.isArray(blocks)) throw new StoreInputError('trace blocks must be an array');
  const seen = new Set<string>();
  for (const [i, b] of blocks.entries()) {
    checkObject(`trace block ${i}`, b);
    const { track, block, startUs, endUs, gzip } = b as Partial<StoredTrace['blocks'][number]>;
    checkInteger(`track of trace block ${i}`, track, 0);
    checkInteger(`number of trace block ${i}`, block, 0);
    checkNumber(`start of trace block ${i}`, startUs);
    checkNumber(`end of trace block ${i}`, endUs);
    checkGzip(`trace block ${i}`, gzip);
    const key = `${track}.${block}`;
    if (seen.has(key)) throw new StoreInputError(`trace block ${block} of track ${track} is given twice`);
    seen.add(key);
  }
}

/** Checks the part named: one of the trace reduction's parts. */
function checkTracePart(part: unknown): asserts part is TracePart {
  if (!(TRACE_PARTS as unknown[]).includes(part)) throw new StoreInputError(`trace part must be one of ${TRACE_PARTS.join(', ')}`);
}

/** Checks a presenter sample: `null` or an object whose JSON has no NUL and fits `MAX_PRESENTER_BYTES`. */
function checkPresenterView(view: unknown): void {
  if (view === null) return;
  checkObject('presenter sample', view);
  if (hasNul(view)) throw new StoreInputError('presenter sample must hold no NUL');
  const bytes = Buffer.byteLength(JSON.stringify(view));
  if (bytes > MAX_PRESENTER_BYTES) throw new StoreInputError(`presenter sample is ${bytes} bytes, over ${MAX_PRESENTER_BYTES}`);
}

/** Checks a room history's bounds: whole bytes and seconds. */
function checkHistoryLimits(limits: unknown): asserts limits is HistoryLimits {
  checkObject('history limits', limits);
  const { historyBytes, historySeconds } = limits as Partial<HistoryLimits>;
  checkInteger('historyBytes', historyBytes, 0);
  checkInteger('historySeconds', historySeconds, 0);
}

/** Checks a history cursor: absent, or the time and id of an entry. */
function checkCursor(after: unknown): asserts after is HistoryCursor | undefined {
  if (after === undefined) return;
  checkObject('history cursor', after);
  const { at, id } = after as Partial<HistoryCursor>;
  checkInteger('cursor time', at, 0);
  checkInteger('cursor id', id, 0);
}

/** Longest JSON of a drill's items the store keeps: 4 MiB (a drill holds at most tens of questions). */
export const MAX_DRILL_ITEMS_BYTES = 4 * 1024 * 1024;

/** Throws `StoreInputError` unless `text` is non-empty text without NUL (an id). */
function checkId(what: string, text: unknown): asserts text is string {
  checkText(what, text);
  if (text.length === 0) throw new StoreInputError(`${what} must not be empty`);
}

/** Checks a new invitation: an id, a note, at least one use, its times. */
function checkInvitation(row: unknown): asserts row is Omit<InvitationRow, 'usesLeft' | 'revokedAt'> {
  checkObject('invitation', row);
  const { id, note, uses, createdAt, expiresAt } = row as Partial<InvitationRow>;
  checkId('invitation id', id);
  checkText('invitation note', note);
  checkInteger('invitation uses', uses, 1);
  checkInteger('invitation createdAt', createdAt, 0);
  if (expiresAt !== null) checkInteger('invitation expiresAt', expiresAt, 0);
}

/** Checks a new drill: ids, its items (an array of objects, JSON within `MAX_DRILL_ITEMS_BYTES`), its time. */
function checkDrill(d: unknown): asserts d is Omit<StoredDrill, 'revealedAt'> {
  checkObject('drill', d);
  const { id, roomId, docId, items, createdAt } = d as Partial<StoredDrill>;
  checkId('drill id', id);
  checkRoomId(roomId);
  checkId('drill document id', docId);
  if (!Array.isArray(items) || items.some((i) => typeof i !== 'object' || i === null || Array.isArray(i))) throw new StoreInputError('drill items must be an array of objects');
  const bytes = Buffer.byteLength(JSON.stringify(items));
  if (bytes > MAX_DRILL_ITEMS_BYTES) throw new StoreInputError(`drill items are ${bytes} bytes of JSON, over ${MAX_DRILL_ITEMS_BYTES}`);
  checkInteger('drill createdAt', createdAt, 0);
}

/** Checks one answer: who (the hash of their key) and their name, the question, the answer text, the verdict, the time. */
function checkAnswer(a: unknown): asserts a is Omit<StoredAnswer, 'firstAt'> {
  checkObject('answer', a);
  const { person, name, questionId, answer, correct, answeredAt } = a as Partial<StoredAnswer>;
  checkId('person', person);
  checkText('name', name);
  checkId('question id', questionId);
  checkText('answer', answer);
  if (typeof correct !== 'boolean') throw new StoreInputError('correct must be true or false');
  checkInteger('answeredAt', answeredAt, 0);
}

function checkObject(what: string, value: unknown): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new StoreInputError(`${what} must be an object`);
}

/**
 * Wraps a shared store so that every call checks its input first (throwing `StoreInputError`
 * before the backend sees anything): the one place both backends' validation lives, so that they
 * refuse the same things.
 */
export function validated(store: SharedStore): SharedStore {
  const { roomLog, rooms, jobs, documents, traces, history, invitations, drills, runnerTokens } = store;
  return {
    roomLog: {
      load: async (roomId) => {
        checkRoomId(roomId);
        return roomLog.load(roomId);
      },
      appendRooms: async (batches) => {
        checkBatches(batches);
        return roomLog.appendRooms(batches);
      },
      compact: async (roomId, snapshot, throughId) => {
        checkRoomId(roomId);
        checkBytes('snapshot', snapshot);
        checkInteger('throughId', throughId, 0);
        return roomLog.compact(roomId, snapshot, throughId);
      },
    },
    rooms: {
      count: () => rooms.count(),
      create: async (room, hashes, check) => {
        checkNewRoom(room, hashes);
        if (check !== undefined && typeof check !== 'function') throw new StoreInputError('check must be a function');
        return rooms.create(room, hashes, check);
      },
      get: async (id) => {
        checkRoomId(id);
        return rooms.get(id);
      },
      lookupToken: async (hash) => {
        checkHash('token hash', hash);
        return rooms.lookupToken(hash);
      },
      tokenHash: async (roomId, role) => {
        checkRoomId(roomId);
        checkRole(role);
        return rooms.tokenHash(roomId, role);
      },
      replaceToken: async (roomId, role, hash) => {
        checkRoomId(roomId);
        checkRole(role);
        checkHash('token hash', hash);
        return rooms.replaceToken(roomId, role, hash);
      },
    },
    jobs: {
      enqueue: async (roomId, request, requestedBy, maxAttempts) => {
        checkRoomId(roomId);
        checkObject('capture request', request);
        checkText('requestedBy', requestedBy);
        checkInteger('maxAttempts', maxAttempts, 1);
        return jobs.enqueue(roomId, request, requestedBy, maxAttempts);
      },
      get: async (id) => {
        checkText('job id', id);
        return jobs.get(id);
      },
      listRoom: async (roomId) => {
        checkRoomId(roomId);
        return jobs.listRoom(roomId);
      },
      heldBy: async (runnerId) => {
        checkText('runner id', runnerId);
        return jobs.heldBy(runnerId);
      },
      lease: async (runnerId, runnerName, leaseMs) => {
        checkText('runner id', runnerId);
        checkText('runner name', runnerName);
        checkInteger('leaseMs', leaseMs, 1);
        return jobs.lease(runnerId, runnerName, leaseMs);
      },
      renew: async (runnerId, jobId, attempt, leaseMs) => {
        checkText('runner id', runnerId);
        checkText('job id', jobId);
        checkInteger('attempt', attempt, 1);
        checkInteger('leaseMs', leaseMs, 1);
        return jobs.renew(runnerId, jobId, attempt, leaseMs);
      },
      setPhase: async (runnerId, jobId, attempt, phase) => {
        checkText('runner id', runnerId);
        checkText('job id', jobId);
        checkInteger('attempt', attempt, 1);
        checkText('phase', phase);
        return jobs.setPhase(runnerId, jobId, attempt, phase);
      },
      cancel: async (jobId) => {
        checkText('job id', jobId);
        return jobs.cancel(jobId);
      },
      claimResult: async (jobId, attempt) => {
        checkText('job id', jobId);
        checkInteger('attempt', attempt, 1);
        return jobs.claimResult(jobId, attempt);
      },
      complete: async (jobId, documents, provenance, analyses) => {
        checkText('job id', jobId);
        if (!Array.isArray(documents)) throw new StoreInputError('documents must be an array of ids');
        for (const d of documents) checkText('document id', d);
        checkObject('provenance', provenance);
        if (analyses !== null) checkObject('analyses', analyses);
        return jobs.complete(jobId, documents, provenance, analyses);
      },
      fail: async (jobId, error, provenance) => {
        checkText('job id', jobId);
        checkObject('capture error', error);
        if (provenance !== undefined) checkObject('provenance', provenance);
        return jobs.fail(jobId, error, provenance);
      },
      sweep: async (retryWaitMs) => {
        checkInteger('retryWaitMs', retryWaitMs, 0);
        return jobs.sweep(retryWaitMs);
      },
      setCarried: async (jobId, carried) => {
        checkText('job id', jobId);
        checkObject('carried counts', carried);
        checkInteger('carried.annotations', carried.annotations, 0);
        checkInteger('carried.detached', carried.detached, 0);
        checkInteger('carried.notCarried', carried.notCarried, 0);
        if (carried.detached > carried.annotations) throw new StoreInputError('carried.detached must not exceed carried.annotations');
        return jobs.setCarried(jobId, carried);
      },
    },
    documents: {
      usage: async (roomId) => {
        checkRoomId(roomId);
        return documents.usage(roomId);
      },
      hasBlob: async (sha256) => {
        checkSha256(sha256);
        return documents.hasBlob(sha256);
      },
      add: async (roomId, meta, blob, check) => {
        checkRoomId(roomId);
        checkDocumentMeta(meta);
        if (blob !== undefined) checkStoredBlob(blob);
        if (check !== undefined && typeof check !== 'function') throw new StoreInputError('check must be a function');
        return documents.add(roomId, meta, blob, check);
      },
      putBlob: async (sha256, bytes, blob) => {
        checkSha256(sha256);
        checkInteger('blob bytes', bytes, 0);
        checkStoredBlob(blob);
        return documents.putBlob(sha256, bytes, blob);
      },
      addAll: async (roomId, docs, check) => {
        checkRoomId(roomId);
        if (!Array.isArray(docs)) throw new StoreInputError('documents must be an array');
        for (const d of docs) {
          checkObject('document', d);
          checkDocumentMeta(d.meta);
          if (d.path !== undefined) checkText('document path', d.path);
        }
        if (check !== undefined && typeof check !== 'function') throw new StoreInputError('check must be a function');
        return documents.addAll(roomId, docs, check);
      },
      setPath: async (roomId, id, path, fileSha256) => {
        checkRoomId(roomId);
        checkText('document id', id);
        checkText('document path', path);
        if (fileSha256 !== undefined) checkSha256(fileSha256);
        return documents.setPath(roomId, id, path, fileSha256);
      },
      remove: async (roomId, id) => {
        checkRoomId(roomId);
        checkText('document id', id);
        return documents.remove(roomId, id);
      },
      hasFile: async (roomId, path, sha256) => {
        checkRoomId(roomId);
        checkText('document path', path);
        checkSha256(sha256);
        return documents.hasFile(roomId, path, sha256);
      },
      roomHasBlob: async (roomId, sha256) => {
        checkRoomId(roomId);
        checkSha256(sha256);
        return documents.roomHasBlob(roomId, sha256);
      },
      moduleRefs: async (roomId) => {
        checkRoomId(roomId);
        return documents.moduleRefs(roomId);
      },
      list: async (roomId) => {
        checkRoomId(roomId);
        return documents.list(roomId);
      },
      get: async (roomId, id) => {
        checkRoomId(roomId);
        checkText('document id', id);
        return documents.get(roomId, id);
      },
      textGzip: async (sha256) => {
        checkSha256(sha256);
        return documents.textGzip(sha256);
      },
      textGzipPieces: async (sha256) => {
        checkSha256(sha256);
        return documents.textGzipPieces(sha256);
      },
      analysisGzipPieces: async (sha256) => {
        checkSha256(sha256);
        return documents.analysisGzipPieces(sha256);
      },
      analysisGzip: async (sha256) => {
        checkSha256(sha256);
        return documents.analysisGzip(sha256);
      },
      analysisPartGzip: async (sha256, part) => {
        checkSha256(sha256);
        checkAnalysisPart(part);
        return documents.analysisPartGzip(sha256, part);
      },
      putAnalysisParts: async (sha256, parts) => {
        checkSha256(sha256);
        checkAnalysisParts(parts);
        return documents.putAnalysisParts(sha256, parts);
      },
    },
    traces: {
      has: async (sha256) => {
        checkSha256(sha256);
        return traces.has(sha256);
      },
      put: async (sha256, t) => {
        checkSha256(sha256);
        checkStoredTrace(t);
        return traces.put(sha256, t);
      },
      overview: async (sha256) => {
        checkSha256(sha256);
        return traces.overview(sha256);
      },
      putOverview: async (sha256, gzip) => {
        checkSha256(sha256);
        checkGzip('trace overview', gzip);
        return traces.putOverview(sha256, gzip);
      },
      part: async (sha256, part) => {
        checkSha256(sha256);
        checkTracePart(part);
        return traces.part(sha256, part);
      },
      blocks: async (sha256, track, fromUs, toUs) => {
        checkSha256(sha256);
        checkInteger('track', track, 0);
        checkNumber('fromUs', fromUs);
        checkNumber('toUs', toUs);
        return traces.blocks(sha256, track, fromUs, toUs);
      },
    },
    history: {
      recordPresenter: async (roomId, at, view) => {
        checkRoomId(roomId);
        checkInteger('at', at, 0);
        checkPresenterView(view);
        return history.recordPresenter(roomId, at, view);
      },
      trim: async (roomId, limits, now) => {
        checkRoomId(roomId);
        checkHistoryLimits(limits);
        checkInteger('now', now, 0);
        return history.trim(roomId, limits, now);
      },
      start: async (roomId, now) => {
        checkRoomId(roomId);
        checkInteger('now', now, 0);
        return history.start(roomId, now);
      },
      presenterSamples: async (roomId, limit) => {
        checkRoomId(roomId);
        checkInteger('limit', limit, 1);
        return history.presenterSamples(roomId, limit);
      },
      page: async (roomId, from, to, after, limit, maxBytes) => {
        checkRoomId(roomId);
        checkInteger('from', from, 0);
        checkInteger('to', to, 0);
        checkCursor(after);
        checkInteger('limit', limit, 1);
        checkInteger('maxBytes', maxBytes, 1);
        return history.page(roomId, from, to, after, limit, maxBytes);
      },
    },
    invitations: {
      insert: async (hash, row) => {
        checkHash('invitation hash', hash);
        checkInvitation(row);
        return invitations.insert(hash, row);
      },
      list: () => invitations.list(),
      revoke: async (id, at) => {
        checkText('invitation id', id);
        checkInteger('at', at, 0);
        return invitations.revoke(id, at);
      },
      take: async (hash, now) => {
        checkHash('invitation hash', hash);
        checkInteger('now', now, 0);
        return invitations.take(hash, now);
      },
      status: async (hash, now) => {
        checkHash('invitation hash', hash);
        checkInteger('now', now, 0);
        return invitations.status(hash, now);
      },
    },
    drills: {
      create: async (d) => {
        checkDrill(d);
        return drills.create(d);
      },
      get: async (roomId, id) => {
        checkRoomId(roomId);
        checkText('drill id', id);
        return drills.get(roomId, id);
      },
      countInRoom: async (roomId) => {
        checkRoomId(roomId);
        return drills.countInRoom(roomId);
      },
      reveal: async (id, at) => {
        checkText('drill id', id);
        checkInteger('at', at, 0);
        return drills.reveal(id, at);
      },
      people: async (drillId) => {
        checkText('drill id', drillId);
        return drills.people(drillId);
      },
      hasPerson: async (drillId, person) => {
        checkText('drill id', drillId);
        checkText('person', person);
        return drills.hasPerson(drillId, person);
      },
      answer: async (drillId, a) => {
        checkText('drill id', drillId);
        checkAnswer(a);
        return drills.answer(drillId, a);
      },
      answers: async (drillId) => {
        checkText('drill id', drillId);
        return drills.answers(drillId);
      },
      answersOf: async (drillId, person) => {
        checkText('drill id', drillId);
        checkText('person', person);
        return drills.answersOf(drillId, person);
      },
    },
    runnerTokens: {
      // A name a token may not be minted for (empty, too long, `local`) is the store's own `RunnerNameError`.
      create: async (name) => {
        checkText('runner name', name);
        return runnerTokens.create(name);
      },
      rotate: async (name) => {
        checkId('runner name', name);
        return runnerTokens.rotate(name);
      },
      list: () => runnerTokens.list(),
      revoke: async (id) => {
        checkText('runner token id', id);
        return runnerTokens.revoke(id);
      },
      verify: async (token) => {
        checkText('runner token', token);
        return runnerTokens.verify(token);
      },
      isLive: async (id) => {
        checkText('runner token id', id);
        return runnerTokens.isLive(id);
      },
    },
    close: () => store.close(),
  };
}
