// A UI test's teardown must end even when Chromium stops answering: a CI run once hung 30 s in
// `browser.close()` and failed the suite.
import { launchChromium } from '../support/browser';

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
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
