// What an attempt's result carries to the store: the change of its endpoint's health that was not written when
// the answer came in (several instances on PostgreSQL apply it in the transaction that writes the result).
import { type AttemptMade, manualResult, scheduledResult } from '../../service/src/delivery/attempt';
import type { EndpointHealthChange } from '../../service/src/domain/endpoint-health';

const T0 = 1_800_000_000_000_000;

function made(healthChange: EndpointHealthChange | null): AttemptMade {
  return {
    outcome: { kind: 'response', status: 200, durationMs: 5, bodyExcerpt: '', retryAfter: null },
    requestedAt: T0,
    signed: true,
    sentTo: 'http://127.0.0.1:9/hook',
    log: {
      deliveryId: 'dlv_1',
      webhookId: 'wh_a',
      eventId: 'ev_1',
      eventType: 'job.run.completed',
      attempt: 1,
      requestedAt: T0,
      durationMs: 5,
      statusCode: '200',
      error: null,
      success: true,
      responseExcerpt: '',
      responseHeaders: {},
      isTest: false,
    },
    healthChange,
  };
}

test("the dispatcher's and a person's results carry the health change left to write, and nothing when none is", () => {
  const change: EndpointHealthChange = (health) => ({ ...health, heard: true });
  const rules = { retryDelaysSeconds: [60], jitter: 0, lease: 'a/1', finishedAt: T0 + 5000 };
  expect(scheduledResult('dlv_1', made(change), rules).endpointHealthChange).toBe(change);
  expect(manualResult('dlv_1', made(change)).endpointHealthChange).toBe(change);
  expect(scheduledResult('dlv_1', made(null), rules).endpointHealthChange).toBeNull();
  expect(manualResult('dlv_1', made(null)).endpointHealthChange).toBeNull();
});
