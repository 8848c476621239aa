import { Hono, type Context } from 'hono';
import { buildExport, exportToMarkdown, readAnnotations, ROLES, type RoomExport } from '@seam/shared/model';
import type { AppDeps } from '../app';
import { requireRole } from '../auth/require';
import { roomTitle } from '../room-title';

/** A file name from a room title: letters, digits, dashes; `room` when nothing is left. */
function fileName(title: string): string {
  const base = title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60);
  return base || 'room';
}

/**
 * `GET /api/rooms/:id/export.md` and `…/export.json`: the room as a report (documents, then each
 * annotation with its quoted lines, kind, size, thread and status), for any role. The browser's
 * Export button builds the same text with the same shared code.
 */
export function exportRoutes(deps: AppDeps): Hono {
  const { store, rooms } = deps;
  const app = new Hono();

  const build = (c: Context): RoomExport => {
    const roomId = c.req.param('id') ?? '';
    requireRole(c, store, roomId, ROLES);
    const doc = rooms.get(roomId).doc;
    const title = roomTitle(doc, store.rooms.get(roomId)?.title ?? roomId);
    const documents = store.documents.list(roomId);
    const shaOf = new Map(documents.map((d) => [d.id, d.sha256]));
    const textOf = (docId: string) => {
      const sha = shaOf.get(docId);
      return sha === undefined ? undefined : deps.texts.get(sha);
    };
    return buildExport({ roomId, title, documents, annotations: readAnnotations(doc), textOf, now: Date.now() });
  };

  app.get('/:id/export.md', (c) => {
    const e = build(c);
    c.header('Content-Disposition', `attachment; filename="${fileName(e.room.title)}.md"`);
    c.header('Cache-Control', 'no-store');
    return c.body(exportToMarkdown(e), 200, { 'Content-Type': 'text/markdown; charset=utf-8' });
  });

  app.get('/:id/export.json', (c) => {
    const e = build(c);
    c.header('Content-Disposition', `attachment; filename="${fileName(e.room.title)}.json"`);
    c.header('Cache-Control', 'no-store');
    return c.json(e);
  });

  return app;
}
