// The plan of a batch of job-run events, as plain data: what both backends write (store/events-plan.ts).
import type { PlannedDeliveries } from '../../service/src/domain/delivery';
import type { EventRecord } from '../../service/src/domain/event';
import type { FanOutWebhook } from '../../service/src/domain/webhook';
import {
  type EventToRecord,
  planEvents,
  recordedOutcome,
  runKeyOf,
  storedPayloadTail,
} from '../../service/src/store/events-plan';

const event = (id: string, accountId: number, runId: string): EventRecord => ({
  id,
  accountId,
  eventType: 'job.run.completed',
  runId,
  jobId: '42',
  createdAt: 1,
  trace: { traceparent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`, tracestate: null },
});

const TAIL = Buffer.from('tail');
const fannedOut: Array<{ eventId: string; webhooks: string[] }> = [];
function item(e: EventRecord, states: Array<'pending' | 'skipped'> = ['pending']): EventToRecord {
  return {
    event: e,
    fanOut: (webhooks): PlannedDeliveries => {
      fannedOut.push({ eventId: e.id, webhooks: webhooks.map((w) => w.id) });
      return {
        payloadTail: TAIL,
        deliveries: states.map((state, i) => ({
          id: `wdl_${e.id}_${i}`,
          webhookId: `w${i}`,
          state,
          payloadHead: TAIL,
        })),
      };
    },
  };
}
const webhooksOf = (accountId: number) => [{ id: `wsu_of_${accountId}` } as FanOutWebhook];

beforeEach(() => {
  fannedOut.length = 0;
});

test("the first event of a run is new and fans out over its account's webhooks; a later one repeats it", () => {
  const first = item(event('wev_1', 1, 'r1'));
  const again = item(event('wev_2', 1, 'r1'));
  const otherAccount = item(event('wev_3', 2, 'r1'));
  const plan = planEvents([first, again, otherAccount], new Map(), webhooksOf);
  expect(plan.fresh.map(({ item: i }) => i.event.id)).toEqual(['wev_1', 'wev_3']);
  expect([...plan.duplicateOf]).toEqual([[again, 'wev_1']]);
  expect(fannedOut).toEqual([
    { eventId: 'wev_1', webhooks: ['wsu_of_1'] },
    { eventId: 'wev_3', webhooks: ['wsu_of_2'] },
  ]);
});

test('an event of a run recorded before is a duplicate of that one, and fans out to nothing', () => {
  const repeat = item(event('wev_9', 1, 'r1'));
  const plan = planEvents([repeat], new Map([[runKeyOf(repeat.event), 'wev_old']]), webhooksOf);
  expect(plan.fresh).toEqual([]);
  expect(plan.duplicateOf.get(repeat)).toBe('wev_old');
  expect(fannedOut).toEqual([]);
});

test('an outcome counts queued and skipped deliveries; an event no webhook wants keeps no payload', () => {
  const planned = planEvents([item(event('wev_1', 1, 'r1'), ['pending', 'skipped', 'pending'])], new Map(), webhooksOf)
    .fresh[0]!.planned;
  expect(recordedOutcome(planned)).toEqual({ kind: 'recorded', queued: 2, skipped: 1 });
  expect(storedPayloadTail(planned)).toBe(TAIL);
  expect(storedPayloadTail({ payloadTail: TAIL, deliveries: [] })).toBeNull();
});
