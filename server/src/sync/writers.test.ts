import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { annotationsMap, annotationToVersion1YMap, type Role } from '@seam/shared/model';
import { migrateRoom } from './migrate-room';
import type { Verdict } from './guard';
import { serverClientId, WriterClaims, type Writer } from './writers';

const OWNER = 11;
const ANNOTATOR = 22;

/** A room document: the server wrote a document entry, the owner a setting, an annotator an annotation. */
function roomDoc(roomId: string): Y.Doc {
  const doc = new Y.Doc();
  doc.clientID = serverClientId(roomId);
  doc.getMap('documents').set('d', { id: 'd' });
  for (const [client, key] of [[OWNER, 'settings'], [ANNOTATOR, 'annotations']] as const) {
    const peer = new Y.Doc();
    peer.clientID = client;
    Y.applyUpdate(peer, Y.encodeStateAsUpdate(doc));
    peer.getMap(key).set('k', 1);
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(peer, Y.encodeStateVector(doc)));
  }
  return doc;
}

const writes = (...clients: number[]): Verdict => ({ ok: true, noop: false, clients, update: new Uint8Array() });
const conn = (role: Role, tokenHash: string): Writer => ({ role, tokenHash });

describe('WriterClaims', () => {
  it('gives a client ID to the first connection that writes with it, while it lives', () => {
    const claims = new WriterClaims<Writer>(roomDoc('r'));
    const a = conn('annotator', 'ta');
    const b = conn('annotator', 'tb');
    expect(claims.admit(a, writes(5))).toMatchObject({ ok: true });
    expect(claims.ownerOf(5)).toBe(a);
    expect(claims.admit(b, writes(6, 5))).toEqual({ ok: false, reason: 'client-taken' });
    expect(claims.ownerOf(6)).toBeUndefined();
    claims.release(a);
    expect(claims.admit(b, writes(5))).toMatchObject({ ok: true });
    expect(claims.ownerOf(5)).toBe(b);
  });

  it('lets a connection with the same token take an ID over (a reconnect before the old socket is gone)', () => {
    const claims = new WriterClaims<Writer>(roomDoc('r'));
    const old = conn('annotator', 't');
    const again = conn('annotator', 't');
    claims.admit(old, writes(5));
    expect(claims.admit(again, writes(5))).toMatchObject({ ok: true });
    claims.release(old);
    expect(claims.ownerOf(5)).toBe(again);
    expect(claims.admit(conn('annotator', 'other'), writes(5))).toEqual({ ok: false, reason: 'client-taken' });
  });

  it("never gives anyone the server's ID, nor an ID that wrote keys the role may not write, also after compaction", () => {
    const live = roomDoc('r');
    // A compacted room loads from one snapshot; its server writes with the same derived ID.
    const doc = new Y.Doc();
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(live));
    doc.clientID = serverClientId('r');
    for (const d of [live, doc]) {
      const claims = new WriterClaims<Writer>(d);
      expect(claims.admit(conn('owner', 'o'), writes(serverClientId('r')))).toEqual({ ok: false, reason: 'client-taken' });
      expect(claims.admit(conn('annotator', 'a'), writes(OWNER))).toEqual({ ok: false, reason: 'client-taken' });
      expect(claims.admit(conn('annotator', 'a'), writes(ANNOTATOR))).toMatchObject({ ok: true });
      expect(claims.admit(conn('owner', 'o'), writes(OWNER))).toMatchObject({ ok: true });
    }
    expect(serverClientId('r')).not.toBe(serverClientId('s'));
  });

  it("never gives anyone another instance's server ID once reserved, taking it from a connection that held it", () => {
    const claims = new WriterClaims<Writer>(roomDoc('r'));
    const other = serverClientId('r', 'instance-b');
    const a = conn('owner', 'o');
    expect(claims.admit(a, writes(other))).toMatchObject({ ok: true });
    claims.reserve(other);
    expect(claims.ownerOf(other)).toBeUndefined();
    expect(claims.admit(a, writes(other))).toEqual({ ok: false, reason: 'client-taken' });
    expect(claims.admit(conn('annotator', 'x'), writes(7, other))).toEqual({ ok: false, reason: 'client-taken' });
    expect(claims.ownerOf(7)).toBeUndefined();
    expect(other).not.toBe(serverClientId('r', 'instance-c'));
  });

  it('passes refusals and no-ops through without taking anything', () => {
    const claims = new WriterClaims<Writer>(roomDoc('r'));
    const a = conn('annotator', 'ta');
    expect(claims.admit(a, { ok: false, reason: 'gap' })).toEqual({ ok: false, reason: 'gap' });
    expect(claims.admit(a, { ok: true, noop: true, clients: [], update: new Uint8Array() })).toMatchObject({ ok: true, noop: true });
    expect(claims.ownerOf(5)).toBeUndefined();
  });

  it("keeps the migration's writes the server's: an annotator whose version-1 maps it rewrote keeps its ID, nobody takes the server's", () => {
    const doc = roomDoc('r');
    const peer = new Y.Doc();
    peer.clientID = 33;
    Y.applyUpdate(peer, Y.encodeStateAsUpdate(doc));
    annotationsMap(peer).set('x', annotationToVersion1YMap({
      id: 'x', docId: 'd', from: 0, to: 1, quote: { prefix: '', exact: 'x', suffix: '' }, kind: 'note', body: 'b',
      author: { id: 'u', name: 'U', color: '#000' }, createdAt: 1, resolved: false, replies: [],
    }));
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(peer, Y.encodeStateVector(doc)));
    doc.transact(() => migrateRoom(doc));
    const claims = new WriterClaims<Writer>(doc);
    expect(claims.admit(conn('annotator', 'a'), writes(33))).toMatchObject({ ok: true });
    expect(claims.admit(conn('owner', 'o'), writes(serverClientId('r')))).toEqual({ ok: false, reason: 'client-taken' });
  });
});
