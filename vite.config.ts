import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vitest/config';

/** What the system and browser test projects share: real servers take seconds to start and to answer. */
const SERVER_TESTS = { root: 'test', testTimeout: 180_000, hookTimeout: 120_000, expect: { poll: { timeout: 10_000 } } };

/** The web build (root `web/`, output `web/dist`) and the test projects of every workspace. */
export default defineConfig({
  root: 'web',
  plugins: [svelte()],
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: true },
  worker: { format: 'es' },
  server: { proxy: { '/api': 'http://127.0.0.1:8080', '/sync': { target: 'ws://127.0.0.1:8080', ws: true } } },
  test: {
    root: '.',
    // Two files at a time (Vitest takes one fewer than the cores, one on a two-core machine). The
    // unit projects and the system tests (real servers, PostgreSQL, Redis, runners; no browser)
    // run first, side by side; the browser tests then run one file at a time on a quiet machine,
    // since they measure what a page draws frame by frame.
    maxWorkers: 2,
    projects: [
      { extends: false, test: { name: 'shared', root: 'shared', include: ['src/**/*.test.ts'] } },
      { extends: false, test: { name: 'server', root: 'server', include: ['src/**/*.test.ts'], testTimeout: 30_000 } },
      { extends: false, test: { name: 'runners', root: 'runners', include: ['src/**/*.test.ts'], testTimeout: 300_000, hookTimeout: 300_000 } },
      { extends: false, test: { name: 'web', root: 'web', include: ['src/**/*.test.ts'] } },
      { extends: false, test: { ...SERVER_TESTS, name: 'system', include: ['system/**/*.test.ts'] } },
      { extends: false, test: { ...SERVER_TESTS, name: 'e2e', include: ['e2e/**/*.test.ts'], fileParallelism: false, sequence: { groupOrder: 1 } } },
      // The attack suite runs alone, after every other project: its /healthz bounds measure the
      // server under attack, not under the other suites' load on the same cores.
      { extends: false, test: { name: 'security', root: 'test', include: ['security/**/*.test.ts'], testTimeout: 180_000, hookTimeout: 300_000, fileParallelism: false, sequence: { groupOrder: 2 } } },
    ],
  },
});
