// The dispatcher's own work per attempt, on a real SQLite store with a stand-in sender: what it does once per
// webhook rather than once per attempt.
import { join } from 'node:path';
import { createSystemClock } from '../../service/src/core/clock';
import { cryptoRandomBytes } from '../../service/src/core/random';
import { createDispatcher } from '../../service/src/delivery/dispatcher';
import type { OutgoingDelivery, SendOutcome } from '../../service/src/delivery/sender';
import { createSecretBox, loadSecretKey } from '../../service/src/security/secret-box';
import { createWebhook, type Harness, startHarness } from '../support/harness';
import { ingest } from '../support/events';
import { isGenuine } from '../support/signature';
import { waitFor } from '../support/wait';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
  // The harness's own dispatcher stands down; the test runs one it can watch.
  await h.service.dispatcher.stop(0);
});
afterEach(() => h.close());

test("a webhook's secret is decrypted once for all its attempts, and every attempt is still signed with it", async () => {
  const hook = await createWebhook(h, { client_url: 'http://127.0.0.1:9/hook', event_types: ['job.run.completed'], job_ids: [] });
  for (let run = 1; run <= 20; run += 1) await ingest(h, 'job.run.completed', { runId: String(run) });
  const box = createSecretBox(loadSecretKey({ envValue: undefined, keyFile: join(h.dir, 'secret.key'), random: cryptoRandomBytes }), cryptoRandomBytes);
  let opened = 0;
  const sent: OutgoingDelivery[] = [];
  const send = async (request: OutgoingDelivery): Promise<SendOutcome> => {
    sent.push(request);
    return { kind: 'response', status: 200, durationMs: 1, bodyExcerpt: '', retryAfter: null };
  };
  const dispatcher = createDispatcher({
    store: h.service.store,
    clock: createSystemClock(),
    send,
    random: cryptoRandomBytes,
    secretBox: { seal: box.seal, open: (sealed) => ((opened += 1), box.open(sealed)) },
    owner: 'test',
    retryDelaysSeconds: [1],
    limits: { maxInFlight: 4, maxInFlightPerEndpoint: 4, leaseMicros: 60_000_000, pollIntervalMs: 10 },
    onError: (error) => {
      throw error;
    },
  });
  dispatcher.start();
  try {
    await waitFor(() => sent.length === 20, '20 attempts');
  } finally {
    await dispatcher.stop(1000);
  }
  expect(opened).toBe(1);
  for (const request of sent) expect(isGenuine(hook.hmac_secret, request.body, request.headers.authorization!)).toBe(true);
});
