import type { Browser, Locator, Page } from 'playwright-core';
import { launchBrowser, openAs, startWebServer, type Person } from './browser';
import { addDocument, createRoom, type CreatedRoom, type TestServer } from './server';

/** A web server, a browser, and a room holding one dump that Ada (owner) and Bo (annotator) have open. */
export interface DumpRoom {
  readonly server: TestServer;
  readonly browser: Browser;
  readonly room: CreatedRoom;
  readonly ada: Person;
  readonly bo: Person;
  /** Closes the browser, then the server. */
  close(): Promise<void>;
}

/** What {@link openDumpRoom} puts in the room, and the line both people wait for. */
export interface DumpRoomSpec {
  readonly roomTitle: string;
  readonly dumpTitle: string;
  readonly dump: string;
  /** Text of a line of the dump; the room is ready once both people see it. */
  readonly lineText: string;
  /** The owner's display name; `Ada` by default. */
  readonly adaName?: string;
  /** Documents uploaded after the dump, in order, as `[title, text]`; none by default. */
  readonly more?: readonly (readonly [title: string, text: string])[];
  /** What else the room holds, added after the documents (a trace, say); nothing by default. */
  readonly fill?: (server: TestServer, room: CreatedRoom) => Promise<unknown>;
  /** Both browser windows' size; {@link openAs}'s by default. */
  readonly viewport?: { readonly width: number; readonly height: number };
}

/**
 * Starts a web server and Chromium, creates the room, uploads the dump (and `more`) over the API,
 * and opens it as Ada (owner link) and Bo (annotator link), collecting page errors on `errors`. On
 * failure whatever was started is closed again.
 */
export async function openDumpRoom(spec: DumpRoomSpec, errors: string[]): Promise<DumpRoom> {
  const [server, browser] = await Promise.all([startWebServer(), launchBrowser()]);
  const close = async () => {
    await browser.close();
    await server.close();
  };
  try {
    const room = await createRoom(server, spec.roomTitle);
    for (const [title, text] of [[spec.dumpTitle, spec.dump] as const, ...(spec.more ?? [])]) await addDocument(server, room.id, room.tokens.owner, title, text);
    await spec.fill?.(server, room);
    const options = spec.viewport ? { viewport: spec.viewport } : {};
    const ada = await openAs(browser, room.links.owner, spec.adaName ?? 'Ada', errors, options);
    const bo = await openAs(browser, room.links.annotator, 'Bo', errors, options);
    for (const p of [ada, bo]) await p.page.locator('.cm-line', { hasText: spec.lineText }).first().waitFor();
    return { server, browser, room, ada, bo, close };
  } catch (e) {
    await close();
    throw e;
  }
}

/** The top bar's save status (`saved`, `offline — 1 change waiting`, …). */
export function saveStatus(page: Page): Locator {
  return page.getByRole('status', { name: 'Save status' });
}

/** Selects one whole line of the open dump with the keyboard, starting from a click on its text. */
export async function selectLine(page: Page, text: string): Promise<void> {
  await page.locator('.cm-line', { hasText: text }).first().click();
  await page.keyboard.press('Home');
  await page.keyboard.press('Shift+End');
}

/** Selects the line holding `text` and annotates it as `kind` (the toolbar button's name) with `comment`. */
export async function annotateLine(page: Page, text: string, kind: string, comment: string): Promise<void> {
  await selectLine(page, text);
  await page.getByRole('button', { name: kind, exact: true }).click();
  await page.getByRole('textbox', { name: 'Comment' }).fill(comment);
  await page.keyboard.press('Enter');
}

/** Pastes `text` into the room as a person does (Ctrl+V outside a text field) and adds it as `title`. */
export async function pasteDump(page: Page, text: string, title: string): Promise<void> {
  await page.evaluate((t) => {
    const data = new DataTransfer();
    data.setData('text/plain', t);
    document.body.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, text);
  await page.getByRole('textbox', { name: 'Dump title' }).fill(title);
  await page.getByRole('button', { name: 'Add to room' }).click();
}

/** `lines` HLO-like lines, each carrying a unique zero-padded tag such as `L05000`. */
export function taggedDump(lines: number): string {
  return Array.from({ length: lines }, (_, i) => `  %add.${i + 1} = f32[128,256]{1,0} add(%p0, %p1) /* L${String(i + 1).padStart(5, '0')} */`).join('\n');
}

/** True when the line carrying `tag` is drawn inside the visible part of the editor. */
export function lineVisible(page: Page, tag: string): Promise<boolean> {
  return page.evaluate((t) => {
    const scroller = document.querySelector('.cm-scroller')?.getBoundingClientRect();
    if (!scroller) return false;
    for (const el of document.querySelectorAll('.cm-line')) {
      if (!el.textContent?.includes(t)) continue;
      const b = el.getBoundingClientRect();
      return b.top >= scroller.top - 1 && b.bottom <= scroller.bottom + 1;
    }
    return false;
  }, tag);
}

/** Drops `files` on the room as a person dragging them from the desktop would (a DataTransfer of Files, without folder entries). */
export async function dropFiles(page: Page, files: readonly { name: string; bytes: Buffer }[]): Promise<void> {
  await page.evaluate(async (list) => {
    const dt = new DataTransfer();
    for (const f of list) dt.items.add(new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name));
    const room = document.querySelector('[aria-label="Room"]')!;
    room.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    room.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, files.map((f) => ({ name: f.name, b64: f.bytes.toString('base64') })));
}
