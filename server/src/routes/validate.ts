import { zValidator } from '@hono/zod-validator';
import { bodyLimit } from 'hono/body-limit';
import type { Context, ValidationTargets } from 'hono';
import type { z } from 'zod';
import { badRequest, tooLarge } from '../errors';

/** `zValidator` that throws the API's 400 error with the first problem zod found. */
export function validate<T extends z.ZodType, Target extends keyof ValidationTargets>(target: Target, schema: T) {
  return zValidator(target, schema, (result) => {
    if (!result.success) {
      const issue = result.error.issues[0];
      const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
      throw badRequest(`${where}${issue?.message ?? 'invalid body'}`);
    }
  });
}

/** Reads the request body as JSON; a body that is not JSON is the API's 400 with `notJson`. */
export async function readJson(c: Context, notJson: string): Promise<unknown> {
  try {
    return (await c.req.json()) as unknown;
  } catch {
    throw badRequest(notJson);
  }
}

/** Hono's `bodyLimit` at `maxSize` bytes, answering a larger body with the API's 413 and `message`. */
export function limitBody(maxSize: number, message: string) {
  return bodyLimit({ maxSize, onError: () => { throw tooLarge(message); } });
}
