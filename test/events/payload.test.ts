// Payload bytes: built once per event for all its webhooks, and byte-for-byte what serializing the whole
// payload object gives (the documented field order), whatever the names contain.
import { DeliveryPayload, EVENT_TYPES, type RunDetails } from '@jobhooks/client/contract';
import { isoTimestampNanos, payloadPartsFor, payloadsFor } from '../../service/src/events/payload';
import { runOf } from '../support/events';

const OCCURRED = 1_675_735_768_491_774_123n;

test.each(EVENT_TYPES)(
  '%s: each webhook gets the bytes of JSON.stringify of its whole payload, in spec order',
  (eventType) => {
    const run = runOf(eventType, { runId: '77' }) as RunDetails;
    const payloadFor = payloadsFor({ accountId: 9, eventId: 'wev_1', eventType, occurredAtNanos: OCCURRED, run });
    for (const webhook of [
      { id: 'wsu_a', name: 'Plain' },
      { id: 'wsu_b', name: 'Quotes " and \\ backslash, \u00e9t\u00e9 \ud83d\ude80, and a\nnewline' },
    ]) {
      const bytes = payloadFor(webhook);
      const parsed = JSON.parse(bytes.toString('utf8')) as DeliveryPayload;
      expect(DeliveryPayload.safeParse(parsed).success).toBe(true);
      const whole = {
        accountId: 9,
        webhookId: webhook.id,
        eventId: 'wev_1',
        timestamp: isoTimestampNanos(OCCURRED),
        eventType,
        webhookName: webhook.name,
        data: parsed.data,
      };
      expect(bytes.toString('utf8')).toBe(JSON.stringify(whole));
      expect(Object.keys(parsed)).toEqual(Object.keys(whole));
    }
  },
);

test('the test flag goes into data, and one builder gives each webhook its own id and name', () => {
  const run = runOf('job.run.completed', {}) as RunDetails;
  const payloadFor = payloadsFor({
    accountId: 1,
    eventId: 'wev_t',
    eventType: 'job.run.completed',
    occurredAtNanos: OCCURRED,
    run,
    test: true,
  });
  const first = JSON.parse(payloadFor({ id: 'wsu_1', name: 'One' }).toString('utf8'));
  const second = JSON.parse(payloadFor({ id: 'wsu_2', name: 'Two' }).toString('utf8'));
  expect(first.data.test).toBe(true);
  expect([first.webhookId, first.webhookName, second.webhookId, second.webhookName]).toEqual([
    'wsu_1',
    'One',
    'wsu_2',
    'Two',
  ]);
  expect(first.data).toEqual(second.data);
});

test("an event's payload splits into a head per webhook and one tail every webhook shares, which together are the whole bytes", () => {
  const run = runOf('job.run.errored', {}) as RunDetails;
  const input = {
    accountId: 3,
    eventId: 'wev_s',
    eventType: 'job.run.errored' as const,
    occurredAtNanos: OCCURRED,
    run,
  };
  const parts = payloadPartsFor(input);
  for (const webhook of [
    { id: 'wsu_1', name: 'One' },
    { id: 'wsu_2', name: 'Two "quoted"' },
  ]) {
    const head = parts.headFor(webhook);
    expect(Buffer.concat([head, parts.tail]).equals(payloadsFor(input)(webhook))).toBe(true);
    expect(head.toString('utf8').endsWith(',"data":')).toBe(true);
    expect(head.toString('utf8')).not.toContain(run.runId);
  }
  expect(parts.tail.toString('utf8')).toBe(
    `${JSON.stringify(JSON.parse(payloadsFor(input)({ id: 'x', name: 'y' }).toString('utf8')).data)}}`,
  );
});
