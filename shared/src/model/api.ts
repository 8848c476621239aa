import { z } from 'zod';
import { ANNOTATION_KINDS } from './annotation';
import { TraceAnchorSchema } from './annotation-trace';
import { ROLES } from './roles';

/**
 * Request bodies of the HTTP API, shared by the server (validation) and the browser (typed calls).
 * Limits here are the API's; the server adds byte limits on whole bodies.
 */

/** Longest title of a room or document, in characters. */
export const MAX_TITLE = 200;
/** Longest annotation or reply body, in characters. */
export const MAX_BODY = 20_000;

/** An author as a client may state it; the server fills in what is missing. */
export const AuthorInput = z.object({
  id: z.string().min(1).max(100).optional(),
  name: z.string().min(1).max(100),
  color: z.string().regex(/^#[0-9a-fA-F]{3,8}$/).default('#888888'),
});
export type AuthorInput = z.infer<typeof AuthorInput>;

/** `POST /api/rooms`. */
export const CreateRoomBody = z.object({ title: z.string().trim().min(1).max(MAX_TITLE) });
export type CreateRoomBody = z.infer<typeof CreateRoomBody>;

/** `POST /api/rooms/:id/documents` as JSON (a raw `text/plain` body with `?title=` is the other form). */
export const CreateDocumentBody = z.object({ title: z.string().trim().min(1).max(MAX_TITLE), text: z.string() });
export type CreateDocumentBody = z.infer<typeof CreateDocumentBody>;

/**
 * `POST /api/rooms/:id/annotations`: a range `[from, to)` in UTF-16 code units of the document
 * text, or on a trace document `trace` (an op or a time range) with `from` and `to` 0.
 */
export const CreateAnnotationBody = z
  .object({
    docId: z.string().min(1).max(100),
    from: z.number().int().nonnegative(),
    to: z.number().int().nonnegative(),
    kind: z.enum(ANNOTATION_KINDS as [string, ...string[]]),
    body: z.string().max(MAX_BODY),
    instruction: z.string().max(500).optional(),
    trace: TraceAnchorSchema.optional(),
    author: AuthorInput.optional(),
  })
  .refine((b) => b.from <= b.to, { message: 'from must not be after to', path: ['to'] })
  .refine((b) => !b.trace || (b.from === 0 && b.to === 0), { message: 'a trace annotation has from and to 0', path: ['from'] });
export type CreateAnnotationBody = z.infer<typeof CreateAnnotationBody>;

/** `POST /api/rooms/:id/annotations/:aid/replies`. */
export const CreateReplyBody = z.object({ body: z.string().min(1).max(MAX_BODY), author: AuthorInput.optional() });
export type CreateReplyBody = z.infer<typeof CreateReplyBody>;

/** `PATCH /api/rooms/:id/annotations/:aid`: at least one field. */
export const PatchAnnotationBody = z
  .object({ body: z.string().max(MAX_BODY).optional(), resolved: z.boolean().optional() })
  .refine((b) => b.body !== undefined || b.resolved !== undefined, { message: 'nothing to change' });
export type PatchAnnotationBody = z.infer<typeof PatchAnnotationBody>;

/** A role in a path, e.g. `POST /api/rooms/:id/links/:role/rotate`. */
export const RoleParam = z.enum(ROLES as [string, ...string[]]);
