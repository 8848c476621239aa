import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, executeConfig, parseCli, pinnedCapabilities, Preparation, preparingPhase, probeIsolation } from '@seam/runners';
import type { Browser } from 'playwright-core';
import { waitFor } from '../helpers';
import { launchBrowser, openAs, WEB_DIST } from '../helpers/browser';
import { getJob, MLP, MLP_ARGS, requestCapture, startCaptureServer, waitJob, type CaptureServer } from '../helpers/capture-kit';

/**
 * The local runner's first virtualenv build, seen from the room: the runner connects at once, and
 * a capture that arrives while it prepares shows the build's progress as its phase, then runs (real
 * server, real agent, real JAX from the project's virtualenv); a build that fails fails the capture
 * with pip's reason and stops the runner. The build itself is a preparation this test drives, line
 * by line, instead of pip. The capture card in Chromium shows that phase while it lasts.
 */

let s: CaptureServer;
let browser: Browser;
const agents: Agent[] = [];

/**
 * An agent named `name` whose preparation reports through `say` and ends with `end`. As `seam-runner
 * --local` does, it makes its capture config only when a capture needs it (the virtualenv's
 * interpreter exists only then); `configs` counts the calls and records whether the preparation
 * had ended at each, and `brokenConfig` makes the call throw.
 */
function preparingAgent(name: string, brokenConfig = false) {
  const { token } = s.token(name);
  const options = parseCli(['--server', s.url, '--token', token, '--name', name], {});
  const isolation = probeIsolation({ sandboxUser: options.sandboxUser, network: options.network, bwrap: options.bwrap, log: () => undefined });
  let say: (line: string) => void = () => undefined;
  let end: (error?: Error) => void = () => undefined;
  const preparation = new Preparation((onLine) => {
    say = onLine;
    return new Promise<void>((resolve, reject) => (end = (error) => (error ? reject(error) : resolve())));
  }, 'building the JAX virtualenv');
  const configs: boolean[] = [];
  const execute = () => {
    configs.push(!preparation.pending);
    if (brokenConfig) throw new Error(`${options.python} is not there`);
    return executeConfig(options, isolation);
  };
  const agent = new Agent({ server: s.url, token, name, capabilities: pinnedCapabilities({}), execute, preparation, log: () => undefined });
  agents.push(agent);
  agent.start();
  return { agent, configs, say: (l: string) => say(l), end: (e?: Error) => end(e) };
}

async function runnerListed(name: string): Promise<void> {
  await waitFor(async () => {
    const res = await fetch(`${s.url}/api/rooms/${s.room.id}/runners`, { headers: { authorization: `Bearer ${s.room.tokens.owner}` } });
    return ((await res.json()) as { runners: { name: string }[] }).runners.some((r) => r.name === name);
  }, `runner ${name} to connect`);
}

beforeAll(async () => {
  [s, browser] = await Promise.all([startCaptureServer({}, WEB_DIST), launchBrowser()]);
});

afterAll(async () => {
  for (const a of agents) a.stop();
  await browser?.close();
  await s?.close();
});

describe('a capture queued while the local runner builds its virtualenv', () => {
  it('shows the build\'s progress as its phase, then runs once the build is done', async () => {
    const { say, end, configs } = preparingAgent('prep');
    await runnerListed('prep');
    const { status, body } = await requestCapture(s, { program: MLP, entry: 'mlp', args: MLP_ARGS, capture: ['jaxpr'], runner: 'prep' });
    expect(status).toBe(202);
    const phase = async () => (await getJob(s, body.job.id)).phase;
    await expect.poll(phase, { timeout: 20_000 }).toBe(preparingPhase('building the JAX virtualenv'));
    say('Collecting jax==0.10.2 (from -r requirements.txt (line 3))');
    say('Downloading jaxlib-0.10.2-cp311-cp311-manylinux2014_x86_64.whl (80.1 MB)');
    await expect.poll(phase, { timeout: 20_000 }).toBe(preparingPhase('Downloading jaxlib-0.10.2-cp311-cp311-manylinux2014_x86_64.whl (80.1 MB)'));
    expect((await getJob(s, body.job.id)).status).toBe('running');
    end();
    const done = await waitJob(s, body.job.id, ['done', 'failed', 'cancelled']);
    expect(done.error).toBeUndefined();
    expect(done.status).toBe('done');
    expect(done.provenance).toMatchObject({ runner: 'prep', jax: '0.10.2' });
    expect(configs).toEqual([true]);
  });

  it('fails the capture with the build\'s reason and stops the runner when the build fails', async () => {
    const { agent, end } = preparingAgent('prep-fails');
    await runnerListed('prep-fails');
    const { body } = await requestCapture(s, { program: MLP, entry: 'mlp', args: MLP_ARGS, capture: ['jaxpr'], runner: 'prep-fails' });
    await expect.poll(async () => (await getJob(s, body.job.id)).phase, { timeout: 20_000 }).toBe(preparingPhase('building the JAX virtualenv'));
    end(new Error('pip install failed: No matching distribution found for jax==0.10.2'));
    const failed = await waitJob(s, body.job.id, ['done', 'failed', 'cancelled']);
    expect(failed).toMatchObject({ status: 'failed', error: { reason: 'runner-error', message: 'the runner could not prepare its Python: pip install failed: No matching distribution found for jax==0.10.2' } });
    await agent.finished;
  });

  it('fails the capture, and stops, when the capture config cannot be made after the build', async () => {
    const { agent, end, configs } = preparingAgent('prep-no-python', true);
    await runnerListed('prep-no-python');
    const { body } = await requestCapture(s, { program: MLP, entry: 'mlp', args: MLP_ARGS, capture: ['jaxpr'], runner: 'prep-no-python' });
    await expect.poll(async () => (await getJob(s, body.job.id)).phase, { timeout: 20_000 }).toBe(preparingPhase('building the JAX virtualenv'));
    end();
    const failed = await waitJob(s, body.job.id, ['done', 'failed', 'cancelled']);
    expect(failed.error?.message).toMatch(/^the runner could not prepare its Python: \S+ is not there$/);
    expect(configs).toEqual([true]);
    await agent.finished;
  });

  it('shows the build\'s phase on the capture card in the page, whole and with a spinner, until the capture runs', async () => {
    const { say, end } = preparingAgent('prep-page');
    await runnerListed('prep-page');
    const errors: string[] = [];
    const ada = await openAs(browser, s.room.links.viewer, 'Ada', errors);
    await ada.page.getByRole('tab', { name: 'Capture' }).click();
    const { body } = await requestCapture(s, { program: MLP, entry: 'mlp', args: MLP_ARGS, capture: ['jaxpr'], runner: 'prep-page' });
    const card = ada.page.getByRole('region', { name: 'Capture' }).getByRole('list', { name: 'Capture queue' }).getByRole('listitem', { name: 'mlp running' });
    const phase = card.getByRole('status', { name: 'Capture phase' });
    await expect.poll(async () => (await phase.textContent()) ?? '', { timeout: 20_000 }).toBe(preparingPhase('building the JAX virtualenv'));
    expect(await phase.locator('.spinner').count()).toBe(1);
    // pip's longest lines: the phase wraps on the card, never cut off or hidden.
    const line = 'Downloading jaxlib-0.10.2-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl (80.1 MB) from the project index mirror';
    say(line);
    await expect.poll(async () => (await phase.textContent()) ?? '', { timeout: 20_000 }).toBe(preparingPhase(line));
    const box = await phase.evaluate((el) => {
      const text = el.lastElementChild as HTMLElement;
      const panel = el.closest('[aria-label="Capture"]') as HTMLElement;
      const r = el.getBoundingClientRect();
      const p = panel.getBoundingClientRect();
      return { fits: text.scrollWidth <= text.clientWidth && el.scrollWidth <= el.clientWidth, inside: r.left >= p.left && r.right <= p.right + 0.5, lines: Math.round(r.height / (parseFloat(getComputedStyle(el).lineHeight) || 16)) };
    });
    expect(box.fits).toBe(true);
    expect(box.inside).toBe(true);
    expect(box.lines).toBeGreaterThan(1);
    await card.screenshot({ path: '/tmp/i/capture-preparing.png' });
    end();
    const done = await waitJob(s, body.job.id, ['done', 'failed', 'cancelled']);
    expect(done.status).toBe('done');
    await expect.poll(() => ada.page.getByRole('listitem', { name: 'mlp running' }).count()).toBe(0);
    expect(await ada.page.getByRole('status', { name: 'Capture phase' }).count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
