import { z } from 'zod';
import { DOCUMENT_KINDS, type DocumentKind, type DocumentMeta } from './document';

/**
 * The import API's bodies: a folder or archive brought into a room (`POST /api/rooms/:id/imports`)
 * answers an `ImportResult`; `seam push` commits files it staged by hash with an `ImportManifest`.
 */

/** Longest path of one imported file, in characters (as `importPathProblem` checks). */
const MAX_PATH = 1024;

/** A pass dump's place, as `ModuleRef.pass`. */
const PassRefSchema = z.object({
  index: z.number().int().nonnegative(),
  pipeline: z.string().optional(),
  name: z.string(),
  when: z.enum(['before', 'after']),
});

/** `ModuleRef`: where a dump sits in an XLA dump folder's module group. */
export const ModuleRefSchema = z.object({
  groupId: z.string().min(1),
  name: z.string(),
  number: z.number().int().nonnegative().optional(),
  path: z.string(),
  pass: PassRefSchema.optional(),
});

/** `DocumentMeta` as the API sends it. */
export const DocumentMetaSchema = z.object({
  id: z.string(),
  title: z.string(),
  kind: z.enum(DOCUMENT_KINDS as [DocumentKind, ...DocumentKind[]]),
  bytes: z.number().int().nonnegative(),
  sha256: z.string(),
  createdAt: z.number(),
  addedBy: z.string().optional(),
  captureId: z.string().optional(),
  module: ModuleRefSchema.optional(),
}) satisfies z.ZodType<DocumentMeta>;

/** One file of a push: its path in the folder, and the sha256 and size of the bytes staged for it. */
export const ImportFileSchema = z.object({
  path: z.string().min(1).max(MAX_PATH),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 in lowercase hex'),
  bytes: z.number().int().nonnegative(),
});
export type ImportFile = z.infer<typeof ImportFileSchema>;

/** `POST /api/rooms/:id/imports` as JSON: commits files staged with `PUT …/blobs/:sha256`, all or nothing. */
export const ImportManifest = z.object({ files: z.array(ImportFileSchema).min(1) });
export type ImportManifest = z.infer<typeof ImportManifest>;

/** A group of the imported documents: `module:<groupId>` with its label (`module 0042 jit_train_step`), or `single:<id>`. */
export const ImportGroupSchema = z.object({ key: z.string(), label: z.string(), documentIds: z.array(z.string()) });
export type ImportGroup = z.infer<typeof ImportGroupSchema>;

/**
 * What an import did: the documents it added, grouped; the files it left out and why; how many
 * documents it added, and how many files the room already held (same path, same bytes), which it
 * did not add again.
 */
export const ImportResult = z.object({
  documents: z.array(DocumentMetaSchema),
  groups: z.array(ImportGroupSchema),
  skipped: z.array(z.object({ path: z.string(), reason: z.string() })),
  added: z.number().int().nonnegative(),
  unchanged: z.number().int().nonnegative(),
});
export type ImportResult = z.infer<typeof ImportResult>;
