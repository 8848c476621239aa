import { afterAll, beforeAll } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, startWebServer } from './browser';
import type { TestServer } from './server';

/** A web server serving the app and Chromium, for the tests of one file. */
export interface WebRig {
  readonly server: TestServer;
  readonly browser: Browser;
}

/**
 * Starts a web server ({@link startWebServer}) and Chromium before the file's tests and closes them
 * after; call it at the top of the file, before the file's own hooks, and read `server` and
 * `browser` from hooks and tests (reading either before they started throws).
 */
export function useWebRig(): WebRig {
  let started: [TestServer, Browser] | null = null;
  beforeAll(async () => {
    started = await Promise.all([startWebServer(), launchBrowser()]);
  });
  afterAll(async () => {
    await started?.[1].close();
    await started?.[0].close();
  });
  const get = () => {
    if (!started) throw new Error('the web server and browser are not started yet: read them from a hook or a test');
    return started;
  };
  return {
    get server() {
      return get()[0];
    },
    get browser() {
      return get()[1];
    },
  };
}
