import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { Invitations, openDatabase, SyncMode } from '@seam/server';
import { launchBrowser, openAs, startWebServer } from '../helpers/browser';
import type { TestServer } from '../helpers/server';

let server: TestServer;
let browser: Browser;
let db: ReturnType<typeof openDatabase>;
let invitations: Invitations;

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer({ SEAM_ROOM_CREATION: 'invite' }), launchBrowser()]);
  // The operator's side: what `npm run -w @seam/server invite -- create` does, on the server's data directory.
  db = openDatabase(server.dataDir, SyncMode.normal);
  invitations = new Invitations(db);
});

afterAll(async () => {
  await browser?.close();
  db?.close();
  await server?.close();
});

/** Where screenshots for a person to look at go, when asked for (`SEAM_SHOTS=/some/dir`). */
const shot = (name: string) => (process.env.SEAM_SHOTS ? { path: `${process.env.SEAM_SHOTS}/${name}.png` } : {});

describe('lobby on a server that creates rooms by invitation', () => {
  it('takes the invitation from a lobby link, creates the room with it, and names the refusal once it is used up', async () => {
    const errors: string[] = [];
    const { secret } = invitations.create({ uses: 1, note: 'Ada' });
    const ada = await openAs(browser, `${server.url}/#invite=${secret}`, 'Ada', errors);
    const code = ada.page.getByRole('textbox', { name: 'Invitation code' });
    await expect.poll(() => code.inputValue()).toBe(secret);
    // The secret leaves the address bar (and history) once it is in the field.
    expect(ada.page.url()).toBe(`${server.url}/`);
    await ada.page.getByRole('textbox', { name: 'Room title' }).fill('Invited lab');
    await ada.page.screenshot(shot('lobby-invite'));
    await ada.page.getByRole('button', { name: 'Create room' }).click();
    await ada.page.getByRole('heading', { name: 'Invited lab' }).waitFor();
    await expect.poll(() => ada.page.getByRole('list', { name: 'Participants' }).textContent()).toContain('owner');

    const bo = await openAs(browser, `${server.url}/#invite=${secret}`, 'Bo', errors);
    await bo.page.getByRole('textbox', { name: 'Room title' }).fill('Second lab');
    await bo.page.getByRole('button', { name: 'Create room' }).click();
    const alert = bo.page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toBe('This invitation has been used up; ask the operator for a new one. invitation_used_up');
    expect(await alert.locator('code').textContent()).toBe('invitation_used_up');
    await bo.page.screenshot(shot('lobby-invite-used-up'));
    expect(errors).toEqual([]);
    await ada.context.close();
    await bo.context.close();
  });

  it('asks for an invitation on a plain lobby link and shows a bad code’s refusal as text', async () => {
    const errors: string[] = [];
    const cy = await openAs(browser, server.url, 'Cy', errors);
    const code = cy.page.getByRole('textbox', { name: 'Invitation code' });
    await code.waitFor();
    await cy.page.getByRole('textbox', { name: 'Room title' }).fill('Uninvited');
    await cy.page.getByRole('button', { name: 'Create room' }).click();
    await expect.poll(() => cy.page.getByRole('alert').textContent()).toBe('Creating a room on this server needs an invitation code.');
    await code.fill('inv_<img src=x onerror=alert(1)>');
    await cy.page.getByRole('button', { name: 'Create room' }).click();
    await expect.poll(() => cy.page.getByRole('alert').locator('code').textContent()).toBe('invitation_invalid');
    expect(await cy.page.locator('main img').count()).toBe(0);
    expect(cy.page.url()).toBe(`${server.url}/`);
    expect(errors).toEqual([]);
    await cy.context.close();
  });
});
