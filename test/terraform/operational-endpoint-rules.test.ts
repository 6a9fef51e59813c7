// dbtcloud_operational_endpoint's pure parts, as the webhook's are tested in wire.test.ts: the plan rules (bound
// through the provider's registry of resource types) and plan-time validation by the operational endpoints API's
// body schema.
import { CLIENT_URL_WHILE_INACTIVE } from '../../provider/terraform/src/resource-rules';
import { RESOURCES } from '../../provider/terraform/src/resource-registry';
import { OPERATIONAL_ENDPOINT_TYPE, WEBHOOK_TYPE } from '../../provider/terraform/src/schema';
import { type TfObject, UNKNOWN } from '../../provider/terraform/src/values';

const endpoint = RESOURCES.get(OPERATIONAL_ENDPOINT_TYPE)!;

const config = {
  name: 'ops',
  description: 'd',
  client_url: 'https://example.com/ops',
  event_types: ['webhook.archived'],
  active: true,
  secret_rotation: null,
  secret_overlap_seconds: null,
};
const state = {
  ...config,
  id: 'ope_1',
  endpoint_id: 'ope_1',
  http_status_code: '200',
  hmac_secret: 's'.repeat(64),
  previous_secret_expires_at: null,
};
/** What Terraform proposes: the configuration, with the prior state's computed values. */
const proposedFrom = (prior: typeof state | null, configured: TfObject): TfObject =>
  prior === null
    ? { ...configured }
    : { ...configured, id: prior.id, endpoint_id: prior.endpoint_id, http_status_code: prior.http_status_code };

test('the provider serves dbtcloud_operational_endpoint beside dbtcloud_webhook, with no account_identifier', () => {
  expect([...RESOURCES.keys()]).toEqual([WEBHOOK_TYPE, OPERATIONAL_ENDPOINT_TYPE]);
  const names = endpoint.schema.attributes.map(({ name }) => name);
  expect(names).toEqual(
    expect.arrayContaining(['id', 'endpoint_id', 'hmac_secret', 'secret_rotation', 'previous_secret_expires_at']),
  );
  expect(names).not.toContain('account_identifier');
  expect(endpoint.schema.attributes.find(({ name }) => name === 'hmac_secret')).toMatchObject({ sensitive: true });
  expect(endpoint.schema.description).toMatch(/^jobhooks' own \(dbt Cloud has no such API/);
});

test.each([
  [
    'create: computed values unknown, omitted optionals defaulted',
    null,
    { ...config, description: null, active: null },
    {
      ...config,
      description: '',
      id: UNKNOWN,
      endpoint_id: UNKNOWN,
      http_status_code: UNKNOWN,
      hmac_secret: UNKNOWN,
      previous_secret_expires_at: null,
    },
  ],
  ['no change: the prior state, status included', state, config, state],
  [
    'a change: id and secret kept, status unknown',
    state,
    { ...config, name: 'm' },
    { ...state, name: 'm', http_status_code: UNKNOWN },
  ],
  [
    'a new secret_rotation: the secret and its overlap unknown, nothing else',
    state,
    { ...config, secret_rotation: 'b' },
    { ...state, secret_rotation: 'b', hmac_secret: UNKNOWN, previous_secret_expires_at: UNKNOWN },
  ],
])('plan: %s', (_name, prior, configured, expected) => {
  expect(endpoint.plan(prior, proposedFrom(prior, configured), configured)).toEqual({
    planned: expected,
    diagnostics: [],
  });
});

test('plan: a new URL for an endpoint that is inactive and stays inactive is an error at client_url', () => {
  const configured = { ...config, client_url: 'https://example.com/b', active: false };
  const { planned, diagnostics } = endpoint.plan(
    { ...state, active: false },
    proposedFrom(state, configured),
    configured,
  );
  expect(planned).toBeNull();
  expect(diagnostics).toEqual([
    expect.objectContaining({
      summary: CLIENT_URL_WHILE_INACTIVE,
      detail: expect.stringMatching(/^The operational endpoint is inactive and would stay so/),
      attribute: { steps: [{ attribute_name: 'client_url' }] },
    }),
  ]);
});

test("validation: the operational endpoints API's own rules and words, at the attribute; unknowns wait", () => {
  expect(endpoint.validate({ ...config, event_types: [UNKNOWN], client_url: UNKNOWN })).toEqual([]);
  expect(endpoint.validate({ ...config, event_types: ['job.run.errored'], secret_overlap_seconds: 604801 })).toEqual([
    {
      severity: 'ERROR',
      summary: 'Invalid event_types',
      detail:
        'event_types may contain only webhook.archived, webhook.failing, webhook.circuit_opened, webhook.recovered, delivery.exhausted',
      attribute: { steps: [{ attribute_name: 'event_types' }] },
    },
    {
      severity: 'ERROR',
      summary: 'Invalid secret_overlap_seconds',
      detail: 'overlap_seconds must be at most 604800 (7 days)',
      attribute: { steps: [{ attribute_name: 'secret_overlap_seconds' }] },
    },
  ]);
  expect(endpoint.validate({ ...config, event_types: [] })).toEqual([
    expect.objectContaining({ detail: 'event_types needs at least one event type' }),
  ]);
});
