import { validateWithoutCodegen } from '@seam/shared/schema-mode';

// Imported first by main.ts: the page's Content-Security-Policy allows no eval, and zod decides
// whether to generate code when each schema is built, so this must run before any is.
validateWithoutCodegen();
