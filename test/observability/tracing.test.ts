// OpenTelemetry traces of a job run (docs/tracing.md): the ingestion span and every attempt's span, exported to a
// real OTLP/HTTP receiver, all in the trace of the ingestion request; each attempt's request carries a
// `traceparent` naming its own span, so the receiver's trace continues it; without OTEL_* the header still goes.
import { parseTraceparent } from '../../service/src/core/trace-context';
import { Writable } from 'node:stream';
import { createWebhook, type Harness, servicesPerHarness, startHarness, webhookPath } from '../support/harness';
import { eventsPath, runOf } from '../support/events';
import { type CollectedSpan, type OtlpCollector, startOtlpCollector } from '../support/otlp-collector';
import { type ReceivedRequest, type Receiver, startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait';

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const FAST_RETRIES = { JOBHOOKS_RETRY_SCHEDULE: '0.02,0.02,0.02,0.02,0.02' };
/** Spans leave in batches; a short delay keeps the test quick. */
const EXPORT_NOW = { OTEL_BSP_SCHEDULE_DELAY: '20' };

let collector: OtlpCollector;
let receiver: Receiver;
let h: Harness | null = null;
beforeEach(async () => {
  collector = await startOtlpCollector();
  receiver = await startReceiver();
});
afterEach(async () => {
  await h?.close();
  h = null;
  await receiver.close();
  await collector.close();
});

/** The receiver answers 503 `failures` times, then 200. */
function failFirst(failures: number): void {
  let calls = 0;
  receiver.respondWith((_request, response) => {
    calls += 1;
    response.writeHead(calls <= failures ? 503 : 200).end();
  });
}

async function ingestWith(headers: Record<string, string>, runId = '1001') {
  const response = await h!.call('POST', eventsPath(), {
    body: { event_type: 'job.run.completed', run: runOf('job.run.completed', { runId }) },
    headers,
  });
  expect(response.statusCode).toBe(202);
  return response.json().data as { event_id: string };
}

const header = (request: ReceivedRequest, name: string) => request.headers[name] as string | undefined;
const named = (name: string) => collector.spans.filter((span) => span.name === name);
const attemptNumber = (span: CollectedSpan) => span.attributes['jobhooks.attempt'];

test("a job run's trace holds its ingestion and every attempt, in the caller's trace, continued by the receiver", async () => {
  h = await startHarness({
    env: {
      ...FAST_RETRIES,
      ...EXPORT_NOW,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'jobhooks-under-test',
    },
  });
  failFirst(2);
  const hook = await createWebhook(h, {
    client_url: `${receiver.url}/hook`,
    event_types: ['job.run.completed'],
    job_ids: [],
  });
  const { event_id } = await ingestWith({
    traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
    tracestate: 'caller=abc',
  });
  await waitFor(() => receiver.requests.length === 3, 'two failures and a success');
  // A person sends the delivery once more: that attempt continues the same trace.
  const deliveries = async () =>
    (await h!.call('GET', `${webhookPath(hook.id)}/deliveries`)).json().data as Array<{
      delivery_id: string;
      success: boolean;
    }>;
  await waitFor(async () => (await deliveries()).some((row) => row.success), 'the success to be logged');
  const deliveryId = (await deliveries())[0]!.delivery_id;
  const retried = await h.call('POST', `${webhookPath(hook.id)}/deliveries/${deliveryId}/retry`);
  expect(retried.statusCode).toBe(200);
  await waitFor(() => named('jobhooks.attempt').length === 4 && named('jobhooks.ingest').length === 1, 'the spans');

  const [ingestion] = named('jobhooks.ingest');
  expect(ingestion).toMatchObject({
    traceId: CALLER_TRACE,
    parentSpanId: CALLER_SPAN,
    kind: 2,
    attributes: expect.objectContaining({
      'jobhooks.event.id': event_id,
      'jobhooks.event.type': 'job.run.completed',
      'jobhooks.run.id': '1001',
      'jobhooks.deliveries.queued': 1,
      'http.route': '/api/v3/accounts/{account_id}/webhooks/events',
    }),
    resource: expect.objectContaining({ 'service.name': 'jobhooks-under-test' }),
  });
  const attempts = named('jobhooks.attempt').sort((a, b) => Number(attemptNumber(a)) - Number(attemptNumber(b)));
  expect(attempts.map((span) => [span.traceId, span.parentSpanId, span.kind])).toEqual(
    Array(4).fill([CALLER_TRACE, ingestion!.spanId, 3]),
  );
  expect(
    attempts.map((span) => [
      attemptNumber(span),
      span.attributes['http.response.status_code'],
      span.attributes['jobhooks.attempt.outcome'],
      span.status.code,
    ]),
  ).toEqual([
    [1, 503, 'failed_status', 2],
    [2, 503, 'failed_status', 2],
    [3, 200, 'succeeded', 0],
    [4, 200, 'succeeded', 0],
  ]);
  for (const span of attempts)
    expect(span.attributes).toMatchObject({
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(receiver.url).port),
      'jobhooks.event.id': event_id,
      'jobhooks.delivery.id': deliveryId,
      'jobhooks.webhook.id': hook.id,
    });
  expect(attempts[3]!.attributes['jobhooks.attempt.manual']).toBe(true);
  // Each attempt's span begins at the start its log entry records.
  const logged = (await h.call('GET', `${webhookPath(hook.id)}/deliveries`)).json().data as Array<{
    attempt: number;
    requested_at: string;
  }>;
  const startOf = new Map(logged.map((row) => [row.attempt, `${row.requested_at}000`]));
  expect(attempts.map((span) => span.startTimeUnixNano)).toEqual([1, 2, 3, 4].map((n) => startOf.get(n)));
  expect(new Set(attempts.map((span) => span.spanId)).size).toBe(4);

  // Each request names its own attempt's span, in the caller's trace, sampled, with the caller's tracestate.
  expect(receiver.requests).toHaveLength(4);
  for (const request of receiver.requests) {
    const sent = parseTraceparent(header(request, 'traceparent'));
    const span = attempts.find((candidate) => candidate.spanId === sent?.spanId);
    expect(sent).toMatchObject({ traceId: CALLER_TRACE, sampled: true });
    expect(span).toBeDefined();
    expect(String(attemptNumber(span!))).toBe(header(request, 'x-jobhooks-attempt'));
    expect(header(request, 'tracestate')).toBe('caller=abc');
  }
  expect(collector.requests.every((r) => r.path === '/v1/traces' && r.contentType === 'application/json')).toBe(true);
});

test('with the default protocol, spans go out as protobuf, and a request without traceparent starts a trace', async () => {
  h = await startHarness({
    env: {
      ...EXPORT_NOW,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=collector%20key',
    },
  });
  await createWebhook(h, { client_url: `${receiver.url}/hook`, event_types: ['job.run.completed'], job_ids: [] });
  await ingestWith({});
  await waitFor(() => named('jobhooks.attempt').length === 1 && named('jobhooks.ingest').length === 1, 'the spans');

  const [ingestion] = named('jobhooks.ingest');
  const [attempt] = named('jobhooks.attempt');
  expect(ingestion!.parentSpanId).toBe('');
  expect(attempt).toMatchObject({ traceId: ingestion!.traceId, parentSpanId: ingestion!.spanId });
  expect(parseTraceparent(header(receiver.requests[0]!, 'traceparent'))).toEqual({
    traceId: ingestion!.traceId,
    spanId: attempt!.spanId,
    sampled: true,
  });
  expect(header(receiver.requests[0]!, 'tracestate')).toBeUndefined();
  expect(collector.requests[0]).toMatchObject({ path: '/v1/traces', contentType: 'application/x-protobuf' });
  expect(collector.requests[0]!.headers['x-api-key']).toBe('collector key');
  expect(ingestion!.resource['service.name']).toBe('jobhooks');
});

test("a caller's trace it did not sample is followed: no span is exported, and receivers are told not sampled", async () => {
  h = await startHarness({ env: { ...EXPORT_NOW, OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint } });
  await createWebhook(h, { client_url: `${receiver.url}/hook`, event_types: ['job.run.completed'], job_ids: [] });
  await ingestWith({ traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-00` });
  await waitFor(() => receiver.requests.length === 1, 'the delivery');
  // Closing the service exports whatever it still holds.
  await h.close();
  h = null;

  expect(parseTraceparent(header(receiver.requests[0]!, 'traceparent'))).toMatchObject({
    traceId: CALLER_TRACE,
    sampled: false,
  });
  expect(collector.spans).toEqual([]);
});

test('the configured sampler decides at ingestion: with always_off nothing is exported, receivers are told so', async () => {
  h = await startHarness({
    env: { ...EXPORT_NOW, OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_TRACES_SAMPLER: 'always_off' },
  });
  await createWebhook(h, { client_url: `${receiver.url}/hook`, event_types: ['job.run.completed'], job_ids: [] });
  await ingestWith({});
  await waitFor(() => receiver.requests.length === 1, 'the delivery');
  await h.close();
  h = null;

  expect(parseTraceparent(header(receiver.requests[0]!, 'traceparent'))).toMatchObject({ sampled: false });
  expect(collector.requests).toEqual([]);
});

test('without OTEL configured nothing is exported, and every attempt still carries a traceparent of the event', async () => {
  // The endpoint is set but the SDK is disabled: traces are off, as with no OTEL_* at all.
  h = await startHarness({
    env: { ...FAST_RETRIES, ...EXPORT_NOW, OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_SDK_DISABLED: 'true' },
  });
  failFirst(1);
  await createWebhook(h, { client_url: `${receiver.url}/hook`, event_types: ['job.run.completed'], job_ids: [] });
  await ingestWith({ traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`, tracestate: 'caller=abc' }, '1');
  await waitFor(() => receiver.requests.length === 2, 'a failure and a success');
  await ingestWith({}, '2');
  await waitFor(() => receiver.requests.length === 3, 'the second event');
  await h.close();
  h = null;

  const sent = receiver.requests.map((request) => ({
    run: JSON.parse(request.body.toString('utf8')).data.runId as string,
    attempt: header(request, 'x-jobhooks-attempt'),
    parent: parseTraceparent(header(request, 'traceparent')),
    tracestate: header(request, 'tracestate'),
  }));
  const ofRun = (run: string) => sent.filter((request) => request.run === run);
  // The caller's trace, each attempt a span of its own.
  expect(
    ofRun('1').map(({ attempt, parent, tracestate }) => [attempt, parent?.traceId, parent?.sampled, tracestate]),
  ).toEqual([
    ['1', CALLER_TRACE, true, 'caller=abc'],
    ['2', CALLER_TRACE, true, 'caller=abc'],
  ]);
  const spanIds = ofRun('1').map(({ parent }) => parent!.spanId);
  expect(new Set([...spanIds, CALLER_SPAN]).size).toBe(3);
  // An event taken in without traceparent gets a trace of its own.
  const [other] = ofRun('2');
  expect(other!.parent).toMatchObject({ sampled: true });
  expect(other!.parent!.traceId).not.toBe(CALLER_TRACE);
  expect(other!.tracestate).toBeUndefined();
  expect(collector.requests).toEqual([]);
});

test('an invalid traceparent is ignored: the event starts a trace of its own, and its tracestate is dropped', async () => {
  h = await startHarness();
  await createWebhook(h, { client_url: `${receiver.url}/hook`, event_types: ['job.run.completed'], job_ids: [] });
  await ingestWith({ traceparent: `00-${CALLER_TRACE.toUpperCase()}-${CALLER_SPAN}-01`, tracestate: 'caller=abc' });
  await waitFor(() => receiver.requests.length === 1, 'the delivery');
  const sent = parseTraceparent(header(receiver.requests[0]!, 'traceparent'));
  expect(sent).not.toBeNull();
  expect(sent!.traceId).not.toBe(CALLER_TRACE.toLowerCase());
  expect(header(receiver.requests[0]!, 'tracestate')).toBeUndefined();
});

test('an export the collector refuses is logged once a minute at most, and delivery goes on', async () => {
  let logged = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged += chunk.toString();
      done();
    },
  });
  collector.answerWith(400);
  h = await startHarness({
    env: { ...EXPORT_NOW, OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint },
    logger: { level: 'error', stream },
  });
  await createWebhook(h, { client_url: `${receiver.url}/hook`, event_types: ['job.run.completed'], job_ids: [] });
  const failures = () => logged.split('\n').filter((line) => line.includes('Exporting traces failed'));
  await ingestWith({}, '1');
  await waitFor(() => failures().length > 0, 'the first refused export to be logged');
  const refusedBefore = collector.requests.length;
  await ingestWith({}, '2');
  await waitFor(() => receiver.requests.length === 2, 'both deliveries');
  // Closing exports what is left and waits for every export's answer.
  await h.close();
  h = null;

  expect(collector.requests.length).toBeGreaterThan(refusedBefore);
  // One line per instance however many exports were refused within the minute.
  expect(failures()).toHaveLength(servicesPerHarness());
  expect(failures()[0]).toContain('could not be exported');
});
