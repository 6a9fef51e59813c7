// A UI test's teardown must end even when Chromium stops answering: a CI run once hung 30 s in
// `browser.close()` and failed the suite.
import { readFileSync } from 'node:fs';
import { launchChromium } from '../support/browser';

/** Alive and not a zombie: a killed crash handler's parent is init, which in a container may never reap it. */
const isRunning = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
};

test('a Chromium that does not answer its close is killed, and close resolves', async () => {
  const chromium = await launchChromium();
  expect(isRunning(chromium.pid)).toBe(true);
  // A stopped process reads no messages, so a graceful close can never finish.
  process.kill(chromium.pid, 'SIGSTOP');
  const started = Date.now();
  await chromium.close();
  expect(isRunning(chromium.pid)).toBe(false);
  expect(Date.now() - started).toBeLessThan(15_000);
}, 30_000);

test("Chromium's crash handlers, in sessions of their own and holding its output, do not hold the close", async () => {
  const chromium = await launchChromium();
  const handlers = chromium.crashHandlerPids();
  expect(handlers.length).toBeGreaterThan(0);
  // Stopped, a handler neither notices the browser go nor exits, so its copy of the browser's output stays open.
  for (const pid of [chromium.pid, ...handlers]) process.kill(pid, 'SIGSTOP');
  const started = Date.now();
  await chromium.close();
  expect([chromium.pid, ...handlers].filter(isRunning)).toEqual([]);
  expect(Date.now() - started).toBeLessThan(15_000);
}, 30_000);
