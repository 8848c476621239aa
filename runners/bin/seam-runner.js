#!/usr/bin/env node
// Runs the TypeScript agent through tsx, so the runner needs no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/agent/main.ts');
process.exitCode = await main(process.argv.slice(2), process.env);
