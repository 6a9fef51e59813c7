// Real Chromium (Debian's package) driven by playwright-core, for the web UI tests. No browser download:
// .ci/run installs /usr/bin/chromium when it is missing, and these helpers say so when it is not there.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { type Harness, type HarnessOptions, startHarness } from './harness';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Git-ignored (test-output/): every UI test leaves a picture of where it ended. */
export const SCREENSHOT_DIR = join(__dirname, '..', '..', 'test-output', 'screenshots');

/** How long a teardown waits for Chromium to close gracefully before it kills the process. */
const BROWSER_CLOSE_GRACE_MS = 5_000;
/** A teardown longer than this says how long each of its steps took. */
const SLOW_TEARDOWN_MS = 10_000;

/**
 * A Chromium process and a connection to it. Launched as a server so its process can be killed: Chromium
 * now and then never answers a close (a CI run hung 30 s in `browser.close()`), and a test teardown must
 * not wait on it.
 */
export interface LaunchedChromium {
  browser: Browser;
  pid: number;
  /**
   * The crash handlers Chromium started for itself. Each runs in a session of its own, so killing Chromium's
   * process group misses them, and each holds Chromium's stdout and stderr: while one lives, Playwright's
   * close and kill both wait, forever for one that hangs (a CI run's UI teardown ran past jest's 30 s limit
   * after Chromium had been killed).
   */
  crashHandlerPids(): number[];
  /** Closes gracefully within a few seconds, then kills every process it started; resolves once they are gone. */
  close(): Promise<void>;
}

export async function launchChromium(): Promise<LaunchedChromium> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is not at ${CHROMIUM_PATH}: install Debian's chromium package (bash .ci/run does) or set CHROMIUM_PATH.`,
    );
  }
  // Chromium's crash handlers keep their reports under $XDG_CONFIG_HOME and name that folder on their command
  // line: a folder of this launch's own tells its handlers from another browser's.
  const configHome = mkdtempSync(join(tmpdir(), 'jobhooks-chromium-'));
  // Chromium's own temporary folders (org.chromium.Chromium.*) too, which a killed Chromium leaves behind: inside
  // that folder, they go with it.
  const temporary = join(configHome, 'tmp');
  mkdirSync(temporary);
  const crashHandlerPids = () => pidsWhoseCommandNames(configHome);
  // Chromium's processes inherit the launch's own XDG_CONFIG_HOME. Those that still show it in their environment,
  // with the crash handlers found by their command line, are every process of the launch that could outlive the
  // kill of Chromium's process group, which Playwright makes.
  const launchPids = () => [
    ...new Set([...crashHandlerPids(), ...pidsWhoseEnvironmentNames(`XDG_CONFIG_HOME=${configHome}`)]),
  ];
  const server = await chromium
    .launchServer({
      executablePath: CHROMIUM_PATH,
      env: { ...process.env, XDG_CONFIG_HOME: configHome, TMPDIR: temporary },
      host: '127.0.0.1',
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
    })
    .catch((error: unknown) => {
      // A launch that timed out may have started Chromium and its handlers.
      killAll(launchPids());
      rmSync(configHome, { recursive: true, force: true });
      throw error;
    });
  // SIGKILL to each of them leaves none to hold Chromium's pipes open, so Playwright's wait for its exit ends. That
  // wait is bounded all the same, and one that runs out names the processes still there (a CI teardown once ran
  // past jest's limit with no sign of which).
  const kill = async () => {
    killAll(launchPids());
    try {
      if (!(await settlesWithin(BROWSER_CLOSE_GRACE_MS, server.kill()))) {
        const left = [...new Set([server.process().pid ?? -1, ...launchPids()])].filter((pid) => pid > 0);
        process.stderr.write(
          `Chromium's processes were killed, and Playwright still waited for them after ${BROWSER_CLOSE_GRACE_MS} ms; ` +
            `still there: ${describeProcesses(left)}.\n`,
        );
      }
    } finally {
      rmSync(configHome, { recursive: true, force: true });
    }
  };
  const browser = await chromium.connect(server.wsEndpoint()).catch(async (error: unknown) => {
    await kill();
    throw error;
  });
  return {
    browser,
    pid: server.process().pid ?? -1,
    crashHandlerPids,
    close: async () => {
      const closed = await settlesWithin(BROWSER_CLOSE_GRACE_MS, server.close());
      if (!closed) process.stderr.write(`Chromium did not close within ${BROWSER_CLOSE_GRACE_MS} ms; killing it.\n`);
      // After a graceful close too: a crash handler that outlived its browser would hold the folder.
      await kill();
    },
  };
}

/** The processes whose command line contains `text` (Linux's /proc; a process that ends meanwhile is skipped). */
function pidsWhoseCommandNames(text: string): number[] {
  return pidsWhose('cmdline', (cmdline) => cmdline.includes(text));
}

/** The processes whose environment holds `entry` (`NAME=value`), this one apart. */
function pidsWhoseEnvironmentNames(entry: string): number[] {
  return pidsWhose('environ', (environ) => environ.split('\0').includes(entry)).filter((pid) => pid !== process.pid);
}

/** The processes whose /proc/<pid>/`file` passes `matches`; a process that ends meanwhile is skipped. */
function pidsWhose(file: 'cmdline' | 'environ', matches: (text: string) => boolean): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return matches(readFileSync(`/proc/${pid}/${file}`, 'utf8'));
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Each process as its pid, state and command, for a message. */
function describeProcesses(pids: number[]): string {
  return pids
    .map((pid) => {
      try {
        const state = /^State:\s*(.*)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '?';
        const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').slice(0, 120);
        return `${pid} (${state}) ${command}`;
      } catch {
        return `${pid} (gone)`;
      }
    })
    .join('; ');
}

function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/** True when the promise settles (either way) within `ms`; false when it is still pending then. */
async function settlesWithin(ms: number, promise: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = promise.then(
    () => true as const,
    () => true as const,
  );
  try {
    return await Promise.race([settled, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

export interface UiPage {
  context: BrowserContext;
  page: Page;
  /** Requests the page, or a tab it opened, made to any origin other than the service's. */
  foreignRequests: string[];
  /** Uncaught errors, console errors and CSP violations of the page or a tab it opened (not the HTTP errors it handled). */
  consoleErrors: string[];
  screenshot(name: string): Promise<string>;
}

export async function openUi(
  browser: Browser,
  origin: string,
  viewport = { width: 1280, height: 900 },
): Promise<UiPage> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const foreignRequests: string[] = [];
  const consoleErrors: string[] = [];
  // Watched on the context: a tab the UI opens (the API reference) counts too, from its first request.
  context.on('request', (request) => {
    const url = request.url();
    // data: and this origin's blob: URLs (a worker a page's own script made) are not requests to another host.
    if (!url.startsWith(origin) && !url.startsWith(`blob:${origin}/`) && !url.startsWith('data:'))
      foreignRequests.push(url);
  });
  context.on('console', (message) => {
    // A 4xx the UI asked for and handled is logged by Chromium too; that is not the page's error.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
      consoleErrors.push(message.text());
  });
  context.on('weberror', (error) => consoleErrors.push(error.error().message));
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

/** Signs in and waits for the landing page, the account overview. */
export async function signInToOverview(ui: UiPage, token: string): Promise<void> {
  await ui.page.getByLabel('API token').fill(token);
  await ui.page.getByRole('button', { name: 'Sign in' }).click();
  await ui.page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
}

/** Signs in, then opens the Webhooks list from the main navigation and waits for it to be loaded. */
export async function signIn(ui: UiPage, token: string): Promise<void> {
  await signInToOverview(ui, token);
  await ui.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
  await ui.page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
  // The heading shows at once; the list is busy until the webhooks and their statistics are in.
  await ui.page.locator('main .webhook-list:not([aria-busy="true"])').waitFor();
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
  const chromiumProcess = await launchChromium().catch(async (error: unknown) => {
    await h.close();
    throw error;
  });
  const { browser } = chromiumProcess;
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
    // Each step is bounded or always ends, so the service is closed even when Chromium hangs.
    close: async () => {
      // How long each step took, said only when the whole took long: a teardown that ran past jest's limit in CI
      // (both backends of one suite at once) could not be made to happen here, and the next one should say where.
      const started = Date.now();
      const took: string[] = [];
      const note = (step: string) => took.push(`${step} at ${Date.now() - started} ms`);
      try {
        await settlesWithin(BROWSER_CLOSE_GRACE_MS, Promise.all(opened.map((ui) => ui.context.close())));
        note('pages closed');
        await chromiumProcess.close();
        note('Chromium closed');
      } finally {
        await h.close();
        note('service closed');
        if (Date.now() - started > SLOW_TEARDOWN_MS) process.stderr.write(`Slow UI teardown: ${took.join(', ')}.\n`);
      }
    },
  };
}
