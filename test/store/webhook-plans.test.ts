// What a write of a webhook does, as plain data: what both backends write (store/webhook-plans.ts).
import type { WebhookRecord } from '../../service/src/domain/webhook';
import { createDecision, secretChangePlan, updatePlan } from '../../service/src/store/webhook-plans';

test.each([
  [
    'a key used before replays that create, even at the limit',
    { requestHash: 'h', webhookId: 'wsu_1' },
    5,
    5,
    { kind: 'replayed', requestHash: 'h', webhookId: 'wsu_1' },
  ],
  ['an account at its limit gets no more', null, 5, 5, { kind: 'limit_reached', limit: 5 }],
  ['an account under its limit gets the webhook', null, 4, 5, { kind: 'created' }],
] as const)('%s', (_what, recorded, count, max, outcome) => {
  expect(createDecision(recorded, count, max)).toEqual(outcome);
});

const current = {
  clientUrl: 'http://127.0.0.1:9/a',
  active: true,
  archivedAt: null,
  sealedSecret: 'v1:old',
} as unknown as WebhookRecord;

test("an update renews the endpoint's health on a new URL or a reactivation, not on a rename", () => {
  const renamed = updatePlan(current, (c) => ({ ...c, name: 'new' }) as never);
  expect(renamed.endpointRenewed).toBe(false);
  expect(updatePlan(current, (c) => ({ ...c, clientUrl: 'http://127.0.0.1:9/b' }) as never).endpointRenewed).toBe(true);
  const archived = { ...current, archivedAt: 1 } as WebhookRecord;
  expect(updatePlan(archived, (c) => ({ ...c, archivedAt: null }) as never).endpointRenewed).toBe(true);
});

test('a new secret marks the replays of the create that showed the old one; the same secret does not', () => {
  const change = (sealedSecret: string) => () => ({
    sealedSecret,
    previousSealedSecret: null,
    previousSecretUntil: null,
    updatedAt: 2,
  });
  expect(secretChangePlan(current, change('v1:new')).rotated).toBe(true);
  expect(secretChangePlan(current, change('v1:old')).rotated).toBe(false);
});
