// The retention job purges the delivery log at start and then every PURGE_INTERVAL_MS, 7 days back from the clock,
// and forgets the secrets whose rotation overlap has ended; stopping it waits for a purge under way, so the
// service closes its store only after it.
import { createManualClock } from '../../service/src/core/clock';
import { createRetentionJob, LOG_RETENTION_MICROS, PURGE_INTERVAL_MS } from '../../service/src/delivery/log-retention';

afterEach(() => jest.useRealTimers());

test('purges at start and on every interval, with a cutoff 7 days before now', async () => {
  jest.useFakeTimers();
  const clock = createManualClock(1_800_000_000_000_000_000n);
  const cutoffs: number[] = [];
  const log = {
    purgeOlderThan: async (cutoff: number) => {
      cutoffs.push(cutoff);
      return { attempts: 0, deliveries: 0, events: 0, hours: 0 };
    },
  };
  const secretsDroppedAt: number[] = [];
  const webhooks = {
    dropEndedSecrets: async (now: number) => {
      secretsDroppedAt.push(now);
      return 0;
    },
  };
  // One process: the cluster runs the job every time it is asked (the PostgreSQL store's sharing is tested with it).
  const cluster = { latest: <T>(_n: string, _now: number, _max: number, task: () => Promise<T>) => task() };
  const job = createRetentionJob({ log, webhooks, cluster, clock, onError: (error) => fail(error) });
  job.start();
  expect(cutoffs).toEqual([1_800_000_000_000_000 - LOG_RETENTION_MICROS]);
  // A rotation's replaced secret is forgotten once its overlap has ended (up to now).
  expect(secretsDroppedAt).toEqual([1_800_000_000_000_000]);
  clock.advanceMillis(PURGE_INTERVAL_MS);
  jest.advanceTimersByTime(PURGE_INTERVAL_MS);
  expect(cutoffs).toHaveLength(2);
  expect(cutoffs[1]).toBe(1_800_000_000_000_000 + PURGE_INTERVAL_MS * 1000 - LOG_RETENTION_MICROS);
  await job.stop();
  jest.advanceTimersByTime(10 * PURGE_INTERVAL_MS);
  expect(cutoffs).toHaveLength(2);
});

test('stop resolves once the purge under way has finished, not before', async () => {
  let finishPurge!: () => void;
  const purging = new Promise<void>((resolve) => {
    finishPurge = resolve;
  });
  const log = {
    purgeOlderThan: async () => {
      await purging;
      return { attempts: 0, deliveries: 0, events: 0, hours: 0 };
    },
  };
  const webhooks = { dropEndedSecrets: async () => 0 };
  const cluster = { latest: <T>(_n: string, _now: number, _max: number, task: () => Promise<T>) => task() };
  const job = createRetentionJob({
    log,
    webhooks,
    cluster,
    clock: createManualClock(),
    onError: (error) => fail(error),
  });
  job.start();
  let stopped = false;
  const stopping = job.stop().then(() => {
    stopped = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(stopped).toBe(false);
  finishPurge();
  await stopping;
  expect(stopped).toBe(true);
});
