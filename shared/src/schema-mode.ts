import { z } from 'zod';

/**
 * Makes the request schemas validate without generating code. Zod compiles object schemas with
 * `new Function` when it can, and probes for that ability once; under the web app's
 * Content-Security-Policy (`script-src 'self'`, no `unsafe-eval`) the probe is refused, which the
 * browser reports as a policy violation. Zod decides when a schema is built, so the browser calls
 * this before any module that builds one is evaluated (this module builds none).
 */
export function validateWithoutCodegen(): void {
  z.config({ jitless: true });
}
