import { z } from 'zod';
import { DOCUMENT_KINDS, MeasuredBandwidthSchema, type DocumentKind } from '@seam/shared/model';
import type { ResultBody } from '@seam/shared/protocol';
import { issuesMessage } from '../errors';

const Provenance = z.object({
  runner: z.string().max(128).default(''),
  platform: z.string().max(64).optional(),
  deviceKind: z.string().max(128).optional(),
  deviceCount: z.number().int().min(0).optional(),
  jax: z.string().max(64).optional(),
  jaxlib: z.string().max(64).optional(),
  python: z.string().max(64).optional(),
  bandwidth: MeasuredBandwidthSchema.optional(),
  startedAt: z.number().optional(),
  finishedAt: z.number().optional(),
});

const Body = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    artifacts: z.array(z.object({ name: z.string().min(1).max(64), kind: z.enum(DOCUMENT_KINDS as [DocumentKind, ...DocumentKind[]]), title: z.string().min(1).max(200), text: z.string() })).max(32),
    provenance: Provenance,
    analyses: z.record(z.string(), z.unknown()).optional(),
  }),
  z.object({
    ok: z.literal(false),
    error: z.object({
      reason: z.enum(['program-error', 'timeout', 'memory-limit', 'output-limit', 'runner-lost', 'runner-error', 'ingest-error']),
      message: z.string().max(10_000),
      traceback: z.string().max(1024 * 1024).optional(),
    }),
    provenance: Provenance.optional(),
  }),
]);

/** Validates a posted result; a string is the reason it was refused. */
export function validResultBody(raw: unknown): ResultBody | string {
  const parsed = Body.safeParse(raw);
  if (parsed.success) return parsed.data;
  return issuesMessage(parsed.error);
}
