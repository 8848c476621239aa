import { Hono } from 'hono';
import {
  addAnnotation, addReply, annotationsMap, CreateAnnotationBody, CreateReplyBody, deleteAnnotation,
  PatchAnnotationBody, quoteOf, readAnnotation, readAnnotations, ROLES, setBody, setResolved,
  type Annotation, type AnnotationKind, type Author, type AuthorInput, type Role, type TraceAnchor,
} from '@seam/shared/model';
import type { AppDeps } from '../app';
import { authorize, type Grant } from '../auth/require';
import { newId } from '../auth/tokens';
import { badRequest, notFound } from '../errors';
import { assertUnlocked } from '../room-lock';
import { limitBody, validate } from './validate';

const WRITERS: readonly Role[] = ['owner', 'annotator'];

function authorOf(input: AuthorInput | undefined, grant: Grant): Author {
  return { id: input?.id ?? `${grant.role}:${grant.tokenHash.slice(0, 8)}`, name: input?.name ?? grant.role, color: input?.color ?? '#888888' };
}

/**
 * Annotations over REST: list, create, reply, edit/resolve, delete. Every write is a server
 * transaction on the room document, committed to disk before the response (a 201 means on disk)
 * and broadcast to live sockets at the same time.
 */
export function annotationRoutes(deps: AppDeps): Hono {
  const { rooms } = deps;
  const app = new Hono();
  const limit = limitBody(deps.config.limits.requestBytes, 'request body too large');
  app.use('/:id/annotations/*', limit);
  app.use('/:id/annotations', limit);

  /** Authorizes a write: role allowed and, for annotators, the room not locked. */
  const writer = async (c: Parameters<typeof authorize>[0], roomId: string) => {
    const grant = await authorize(c, deps, roomId, WRITERS);
    const room = await rooms.load(roomId);
    assertUnlocked(rooms, roomId, grant.role);
    return { grant, room };
  };

  app.get('/:id/annotations', async (c) => {
    const roomId = c.req.param('id');
    await authorize(c, deps, roomId, ROLES);
    return c.json({ annotations: readAnnotations((await rooms.load(roomId)).doc) });
  });

  app.post('/:id/annotations', validate('json', CreateAnnotationBody), async (c) => {
    const roomId = c.req.param('id');
    await writer(c, roomId);
    const body = c.req.valid('json');
    const meta = await deps.content.documents.get(roomId, body.docId);
    if (meta && (meta.kind === 'trace') !== (body.trace !== undefined)) {
      throw badRequest(meta.kind === 'trace' ? 'a trace document is annotated with a trace anchor (an op or a time range)' : 'a trace anchor needs a trace document');
    }
    const text = meta && (body.trace ? '' : await deps.texts.get(meta.sha256));
    if (!meta || text === undefined) throw notFound('no such document in this room');
    // Checked again after the text was read: the room may have been locked (or reloaded) meanwhile.
    const { grant, room } = await writer(c, roomId);
    if (body.to > text.length) throw badRequest(`range ends at ${body.to}, after the end of the text (${text.length})`);
    const a: Annotation = {
      id: newId(), docId: body.docId, from: body.from, to: body.to, quote: quoteOf(text, body.from, body.to),
      kind: body.kind as AnnotationKind, body: body.body, author: authorOf(body.author, grant), createdAt: Date.now(),
      resolved: false, replies: [], ...(body.instruction !== undefined ? { instruction: body.instruction } : {}),
      ...(body.trace ? { trace: body.trace as TraceAnchor } : {}),
    };
    await room.transact((doc) => addAnnotation(doc, a));
    return c.json(a, 201);
  });

  app.post('/:id/annotations/:aid/replies', validate('json', CreateReplyBody), async (c) => {
    const { grant, room } = await writer(c, c.req.param('id'));
    const body = c.req.valid('json');
    const reply = { id: newId(), body: body.body, author: authorOf(body.author, grant), createdAt: Date.now() };
    let found = false;
    await room.transact((doc) => {
      found = addReply(doc, c.req.param('aid'), reply);
    });
    if (!found) throw notFound('no such annotation');
    return c.json(reply, 201);
  });

  app.patch('/:id/annotations/:aid', validate('json', PatchAnnotationBody), async (c) => {
    const { room } = await writer(c, c.req.param('id'));
    const aid = c.req.param('aid');
    const body = c.req.valid('json');
    if (!annotationsMap(room.doc).has(aid)) throw notFound('no such annotation');
    await room.transact((doc) => {
      if (body.body !== undefined) setBody(doc, aid, body.body, Date.now());
      if (body.resolved !== undefined) setResolved(doc, aid, body.resolved);
    });
    return c.json(readAnnotation(annotationsMap(room.doc).get(aid)) ?? null);
  });

  app.delete('/:id/annotations/:aid', async (c) => {
    const { room } = await writer(c, c.req.param('id'));
    const aid = c.req.param('aid');
    if (!annotationsMap(room.doc).has(aid)) throw notFound('no such annotation');
    await room.transact((doc) => deleteAnnotation(doc, aid));
    return c.body(null, 204);
  });

  return app;
}
