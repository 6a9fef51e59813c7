// Real Chromium (Debian's package) driven by playwright-core, for the web UI tests. No browser download:
// .ci/run installs /usr/bin/chromium when it is missing, and these helpers say so when it is not there.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { type Harness, type HarnessOptions, startHarness } from './harness';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Git-ignored (test-output/): every UI test leaves a picture of where it ended. */
export const SCREENSHOT_DIR = join(__dirname, '..', '..', 'test-output', 'screenshots');

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium is not at ${CHROMIUM_PATH}: install Debian's chromium package (bash .ci/run does) or set CHROMIUM_PATH.`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    // As root in a container Chromium needs --no-sandbox; the network flags stop it calling Google's
    // hosts, which this machine's closed network refuses.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface UiPage {
  context: BrowserContext;
  page: Page;
  /** Requests the page made to any origin other than the service's. */
  foreignRequests: string[];
  /** Uncaught errors, console errors and CSP violations of the page (not the HTTP errors it handled). */
  consoleErrors: string[];
  screenshot(name: string): Promise<string>;
}

export async function openUi(browser: Browser, origin: string, viewport = { width: 1280, height: 900 }): Promise<UiPage> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const foreignRequests: string[] = [];
  const consoleErrors: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(origin) && !request.url().startsWith('data:')) foreignRequests.push(request.url());
  });
  page.on('console', (message) => {
    // A 4xx the UI asked for and handled is logged by Chromium too; that is not the page's error.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  await page.goto(`${origin}/`);
  return {
    context,
    page,
    foreignRequests,
    consoleErrors,
    screenshot: async (name) => {
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      const path = join(SCREENSHOT_DIR, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
  };
}

export async function signIn(ui: UiPage, token: string): Promise<void> {
  await ui.page.getByLabel('API token').fill(token);
  await ui.page.getByRole('button', { name: 'Sign in' }).click();
  await ui.page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
}

/** A service listening on 127.0.0.1 with the UI, and a browser to look at it. */
export interface UiHarness {
  h: Harness;
  origin: string;
  browser: Browser;
  open(viewport?: { width: number; height: number }): Promise<UiPage>;
  close(): Promise<void>;
}

export async function startUiHarness(options: HarnessOptions = {}): Promise<UiHarness> {
  const h = await startHarness(options);
  const origin = (await h.listen()).replace(/\/api$/, '');
  const browser = await launchChromium().catch(async (error: unknown) => {
    await h.close();
    throw error;
  });
  const opened: UiPage[] = [];
  return {
    h,
    origin,
    browser,
    open: async (viewport) => {
      const ui = await openUi(browser, origin, viewport);
      opened.push(ui);
      return ui;
    },
    close: async () => {
      await Promise.all(opened.map((ui) => ui.context.close()));
      await browser.close();
      await h.close();
    },
  };
}
