#!/usr/bin/env node
// The `seam` command: TypeScript sources run through tsx, no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
