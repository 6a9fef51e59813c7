// PUT semantics as a pure rule: replacement, reactivation of archived webhooks, and a fresh failure record for a new
// URL.
import type { WebhookRecord, WebhookWritable } from '../../service/src/domain/webhook';
import { UNKNOWN_ENDPOINT } from '../../service/src/domain/endpoint-health';
import { planUpdate } from '../../service/src/webhooks/update-rules';

const URL_A = 'https://a.example.com/hook';
const URL_B = 'https://b.example.com/hook';

function record(overrides: Partial<WebhookRecord> = {}): WebhookRecord {
  return {
    id: 'wsu_1',
    kind: 'job',
    accountId: 1,
    accountIdentifier: 'act_1',
    name: 'n',
    description: '',
    clientUrl: URL_A,
    eventTypes: ['job.run.started'],
    jobIds: [],
    active: true,
    maxRequestsPerSecond: null,
    sealedSecret: 's',
    previousSealedSecret: null,
    previousSecretUntil: null,
    createdAt: 1,
    updatedAt: 1,
    dispatchedAt: null,
    httpStatusCode: '500',
    consecutiveFailures: 0,
    failingSince: null,
    lastFailureAt: null,
    archivedAt: null,
    archivedReason: null,
    endpointHealth: UNKNOWN_ENDPOINT,
    endpointHealthRevision: 0,
    ...overrides,
  };
}
const input = (overrides: Partial<WebhookWritable> = {}): WebhookWritable => ({
  name: 'n',
  description: '',
  clientUrl: URL_A,
  eventTypes: ['job.run.started'],
  jobIds: [],
  active: true,
  maxRequestsPerSecond: null,
  ...overrides,
});
const archived = {
  active: false,
  archivedAt: 50,
  archivedReason: '1,000 consecutive failed deliveries',
  consecutiveFailures: 1000,
  failingSince: 10,
  lastFailureAt: 49,
};

test.each([
  // [case, current, input, expected active, expected archived, failures reset]
  ['archived + active true, same URL: reactivated', record(archived), input({ active: true }), true, false, true],
  [
    'archived + active false, new URL: reactivated (the URL wins)',
    record(archived),
    input({ active: false, clientUrl: URL_B }),
    true,
    false,
    true,
  ],
  [
    'archived + active true, new URL: reactivated',
    record(archived),
    input({ active: true, clientUrl: URL_B }),
    true,
    false,
    true,
  ],
  ['archived + active false, same URL: stays archived', record(archived), input({ active: false }), false, true, false],
  [
    'active + new URL: failures reset',
    record({ consecutiveFailures: 7, failingSince: 3 }),
    input({ clientUrl: URL_B }),
    true,
    false,
    true,
  ],
  [
    'active, renamed only: failures kept',
    record({ consecutiveFailures: 7, failingSince: 3 }),
    input({ name: 'm' }),
    true,
    false,
    false,
  ],
  [
    'inactive + new URL: becomes active',
    record({ active: false }),
    input({ active: false, clientUrl: URL_B }),
    true,
    false,
    true,
  ],
  ['active + active false: deactivated', record(), input({ active: false }), false, false, false],
] as const)('%s', (_case, current, written, active, stillArchived, reset) => {
  const change = planUpdate(current, written, 99);
  expect(change.active).toBe(active);
  expect(change.archivedAt !== null).toBe(stillArchived);
  expect(change.archivedReason !== null).toBe(stillArchived);
  expect(change.consecutiveFailures === 0 && change.failingSince === null && change.lastFailureAt === null).toBe(
    reset || current.consecutiveFailures === 0,
  );
  if (!reset) expect(change.consecutiveFailures).toBe(current.consecutiveFailures);
  expect(change.updatedAt).toBe(99);
  expect(change.name).toBe(written.name);
});
