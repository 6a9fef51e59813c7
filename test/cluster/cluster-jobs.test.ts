// Work of the whole cluster done once per period, not once per instance: a result one instance computed is read
// by the others until it is older than its period (on the instances' clocks, manual here), concurrent askers
// wait for one computation, and the log purge and the /metrics backlog gauges use it.
import { createManualClock } from '../../service/src/core/clock';
import { DEFAULT_HEALTH_RULES, EndpointHealthRegistry } from '../../service/src/delivery/endpoint-health';
import { createRetentionJob, PURGE_SHARED_MAX_AGE_MS } from '../../service/src/delivery/log-retention';
import { createMetrics } from '../../service/src/observability/metrics';
import type { Store } from '../../service/src/store/store';
import { openTestStore, type TestStore } from '../support/stores';
import { sleep, waitFor } from '../support/wait';

let opened: TestStore[] = [];
let a: Store;
let b: Store;
beforeEach(async () => {
  const first = await openTestStore('postgres');
  const second = await openTestStore('postgres', first.location);
  opened = [first, second];
  [a, b] = [first.store, second.store];
});
afterEach(async () => {
  await Promise.all(opened.map((o) => o.close()));
  for (const o of opened) expect(o.backgroundErrors).toEqual([]);
});

const T0 = 1_800_000_000_000;

function counting(result: Record<string, number>) {
  const task = jest.fn(async () => {
    await sleep(30);
    return result;
  });
  return task;
}

describe('latest', () => {
  test('another instance reads the result until it is as old as the period, then computes its own', async () => {
    const first = counting({ n: 1 });
    expect(await a.cluster.latest('job', T0, 60_000, first)).toEqual({ n: 1 });
    const second = counting({ n: 2 });
    expect(await b.cluster.latest('job', T0 + 59_999, 60_000, second)).toEqual({ n: 1 });
    expect(second).not.toHaveBeenCalled();
    expect(await b.cluster.latest('job', T0 + 60_000, 60_000, second)).toEqual({ n: 2 });
    expect(await a.cluster.latest('job', T0 + 60_001, 60_000, first)).toEqual({ n: 2 });
    expect(first).toHaveBeenCalledTimes(1);
    expect(second).toHaveBeenCalledTimes(1);
  });

  test('of concurrent askers on both instances, one computes and the others get its result', async () => {
    const task = counting({ n: 7 });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? a : b).cluster.latest('busy', T0, 60_000, task)),
    );
    expect(results).toEqual(Array(8).fill({ n: 7 }));
    expect(task).toHaveBeenCalledTimes(1);
  });

  test('a failed computation leaves no result: the next asker computes', async () => {
    await expect(
      a.cluster.latest('flaky', T0, 60_000, async () => {
        throw new Error('disk full');
      }),
    ).rejects.toThrow('disk full');
    expect(await b.cluster.latest('flaky', T0, 60_000, async () => ({ n: 3 }))).toEqual({ n: 3 });
  });

  test('names are separate', async () => {
    await a.cluster.latest('one', T0, 60_000, async () => ({ n: 1 }));
    expect(await b.cluster.latest('two', T0, 60_000, async () => ({ n: 2 }))).toEqual({ n: 2 });
  });
});

test('two instances purge the delivery log once per period between them', async () => {
  const clock = createManualClock(BigInt(T0) * 1_000_000n);
  const purges: string[] = [];
  const jobOf = (store: Store, name: string) =>
    createRetentionJob({
      log: {
        purgeOlderThan: async (cutoff) => {
          purges.push(name);
          return store.deliveryLog.purgeOlderThan(cutoff);
        },
      },
      webhooks: store.webhooks,
      cluster: store.cluster,
      clock,
      onError: (error) => {
        throw error;
      },
    });
  const jobs = [jobOf(a, 'a'), jobOf(b, 'b')];
  for (const job of jobs) job.start();
  await waitFor(() => purges.length === 1, 'the first purge');
  await sleep(300);
  expect(purges).toHaveLength(1);
  await Promise.all(jobs.map((job) => job.stop()));
  // A period later, the next instance to start finds the last purge old enough and purges.
  clock.advanceMillis(PURGE_SHARED_MAX_AGE_MS);
  jobs[1]!.start();
  await waitFor(() => purges.length === 2, 'the second purge');
  await jobs[1]!.stop();
});

test('the backlog gauges of several instances are counted once per period, and read alike by all', async () => {
  const clock = createManualClock(BigInt(T0) * 1_000_000n);
  const counted: string[] = [];
  const metricsOf = (store: Store, name: string) => {
    const countArchived = store.webhooks.countArchived.bind(store.webhooks);
    const watched: Store = {
      ...store,
      webhooks: {
        ...store.webhooks,
        countArchived: async () => {
          counted.push(name);
          return countArchived();
        },
      },
    };
    return createMetrics({
      store: watched,
      clock,
      health: new EndpointHealthRegistry({ ...DEFAULT_HEALTH_RULES, maxInFlight: 16 }, () => 0, {
        store: store.endpointHealth,
        onError: () => undefined,
      }),
      inFlight: () => 0,
      backlogMaxAgeMs: 15_000,
    }).registry;
  };
  const registries = [metricsOf(a, 'a'), metricsOf(b, 'b')];
  const scrape = async () =>
    Promise.all(registries.map(async (r) => (await r.getSingleMetric('jobhooks_deliveries_due')!.get()).values));
  expect(await scrape()).toEqual([[{ labels: {}, value: 0 }], [{ labels: {}, value: 0 }]]);
  for (let i = 0; i < 3; i += 1) await scrape();
  expect(counted).toHaveLength(1);
  clock.advanceMillis(15_000);
  await scrape();
  expect(counted).toHaveLength(2);
});
