// Configuration from the environment: defaults, and a clear message naming the variable on a bad value.
import { loadConfig } from '../service/src/config';

test('defaults match docs/operating.md#settings', () => {
  const config = loadConfig({});
  expect(config).toMatchObject({
    host: '127.0.0.1',
    port: 8080,
    rateLimitPerMinute: 5000,
    allowPrivateUrls: false,
    logLevel: 'info',
    bootstrap: null,
    durability: 'full',
  });
  expect(config.databasePath).toMatch(/data\/jobhooks\.db$/);
  expect(config.retryDelaysSeconds).toEqual([5, 300, 1800, 7200, 18000]);
  expect(config.delivery).toEqual({ maxInFlight: 256, maxInFlightPerWebhook: 16, leaseSeconds: 60 });
});

test('the retry schedule and delivery limits are read from the environment', () => {
  const config = loadConfig({
    JOBHOOKS_RETRY_SCHEDULE: '1, 2.5,3,4 ,0',
    JOBHOOKS_DELIVERY_CONCURRENCY: '8',
    JOBHOOKS_DELIVERY_CONCURRENCY_PER_ENDPOINT: '2',
    JOBHOOKS_DELIVERY_LEASE_SECONDS: '30',
  });
  expect(config.retryDelaysSeconds).toEqual([1, 2.5, 3, 4, 0]);
  expect(config.delivery).toEqual({ maxInFlight: 8, maxInFlightPerWebhook: 2, leaseSeconds: 30 });
});

test('values are read and converted', () => {
  const config = loadConfig({
    PORT: '9000',
    JOBHOOKS_ALLOW_PRIVATE_URLS: '1',
    JOBHOOKS_BOOTSTRAP_ACCOUNT_ID: '12',
    JOBHOOKS_BOOTSTRAP_TOKEN: 'a-long-enough-bootstrap-token',
    JOBHOOKS_RATE_LIMIT_PER_MINUTE: '10',
  });
  expect(config).toMatchObject({
    port: 9000,
    allowPrivateUrls: true,
    rateLimitPerMinute: 10,
    bootstrap: { accountId: 12, token: 'a-long-enough-bootstrap-token' },
  });
});

test.each([
  [{ PORT: 'eighty' }, /PORT: must be a port number/],
  [{ PORT: '70000' }, /PORT/],
  [{ JOBHOOKS_RATE_LIMIT_PER_MINUTE: '0' }, /JOBHOOKS_RATE_LIMIT_PER_MINUTE/],
  [{ JOBHOOKS_ALLOW_PRIVATE_URLS: 'maybe' }, /JOBHOOKS_ALLOW_PRIVATE_URLS/],
  [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent$/m],
  [{ JOBHOOKS_RETRY_SCHEDULE: '5,300,1800' }, /JOBHOOKS_RETRY_SCHEDULE: must list exactly 5 delays/],
  [{ JOBHOOKS_RETRY_SCHEDULE: '5,-1,1,1,1' }, /JOBHOOKS_RETRY_SCHEDULE: must be comma-separated numbers of seconds/],
  [{ JOBHOOKS_DELIVERY_LEASE_SECONDS: '10' }, /JOBHOOKS_DELIVERY_LEASE_SECONDS: must be at least 15/],
  [{ JOBHOOKS_DELIVERY_CONCURRENCY: '0' }, /JOBHOOKS_DELIVERY_CONCURRENCY/],
  [{ JOBHOOKS_BOOTSTRAP_ACCOUNT_ID: '1' }, /must be set together/],
  [
    { JOBHOOKS_MASKED_RESPONSE_HEADERS: 'x-api-key, bad header' },
    /JOBHOOKS_MASKED_RESPONSE_HEADERS: must be header names separated by commas/,
  ],
  [
    { JOBHOOKS_BOOTSTRAP_ACCOUNT_ID: '1', JOBHOOKS_BOOTSTRAP_TOKEN: 'short' },
    /JOBHOOKS_BOOTSTRAP_TOKEN: must be at least 20/,
  ],
  [{ JOBHOOKS_DATABASE_POOL_SIZE: '1' }, /JOBHOOKS_DATABASE_POOL_SIZE: must be at least 2/],
  [{ JOBHOOKS_TRUST_PROXY: '2' }, /JOBHOOKS_TRUST_PROXY: must be 1 \(any proxy\), 0, or the proxies' addresses/],
  [{ JOBHOOKS_TRUST_PROXY: '10.1/16' }, /JOBHOOKS_TRUST_PROXY/],
  [{ JOBHOOKS_RETRY_SCHEDULE: '99999999999,1,1,1,1' }, /JOBHOOKS_RETRY_SCHEDULE: must have each delay at most 604800/],
  [{ JOBHOOKS_DELIVERY_CONCURRENCY: '99999999999999' }, /JOBHOOKS_DELIVERY_CONCURRENCY: must be at most 10,000/],
  [
    { JOBHOOKS_METRICS_MAX_AGE_SECONDS: '99999999999999999999' },
    /JOBHOOKS_METRICS_MAX_AGE_SECONDS: must be at most 3600/,
  ],
])('%j is refused with a message naming the variable', (env, message) => {
  expect(() => loadConfig(env)).toThrow(message);
});

test.each([
  ['1', true],
  ['off', false],
  ['10.0.0.5', '10.0.0.5'],
  ['10.0.0.0/8, fd00::/8', '10.0.0.0/8, fd00::/8'],
])('JOBHOOKS_TRUST_PROXY=%s is read as %j', (value, expected) => {
  expect(loadConfig({ JOBHOOKS_TRUST_PROXY: value }).trustProxy).toEqual(expected);
});

test('a JOBHOOKS_TRUST_PROXY that is neither a flag nor addresses is refused, naming it', () => {
  expect(() => loadConfig({ JOBHOOKS_TRUST_PROXY: '2 hops' })).toThrow(
    "JOBHOOKS_TRUST_PROXY: must be 1 (any proxy), 0, or the proxies' addresses (such as 10.0.0.5) or CIDR ranges separated by commas",
  );
});

test('JOBHOOKS_DATABASE_URL must be a PostgreSQL URL and needs JOBHOOKS_SECRET_KEY', () => {
  expect(() => loadConfig({ JOBHOOKS_DATABASE_URL: 'mysql://db/jobhooks', JOBHOOKS_SECRET_KEY: 'k' })).toThrow(
    /JOBHOOKS_DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL/,
  );
  expect(() => loadConfig({ JOBHOOKS_DATABASE_URL: 'postgres://db/jobhooks' })).toThrow(
    /JOBHOOKS_SECRET_KEY: must be set with JOBHOOKS_DATABASE_URL/,
  );
  // A URL no parser reads (a port that is no number) is refused, and its password never repeated.
  const unreadable = () =>
    loadConfig({ JOBHOOKS_DATABASE_URL: 'postgres://app:s3cret@127.0.0.1:notaport/jh', JOBHOOKS_SECRET_KEY: 'k' });
  expect(unreadable).toThrow(/JOBHOOKS_DATABASE_URL: cannot be read as a URL \(postgres:\/\/user:password@host:5432/);
  expect(unreadable).not.toThrow(/s3cret/);
  const config = loadConfig({ JOBHOOKS_DATABASE_URL: 'postgresql://db/jobhooks', JOBHOOKS_SECRET_KEY: 'k' });
  expect(config.postgres).toEqual({ url: 'postgresql://db/jobhooks', poolSize: 10 });
  expect(loadConfig({}).postgres).toBeNull();
});

test('JOBHOOKS_MASKED_RESPONSE_HEADERS lists header names, lower-cased; none besides the built-in ones by default', () => {
  expect(loadConfig({}).maskedResponseHeaders).toEqual([]);
  expect(loadConfig({ JOBHOOKS_MASKED_RESPONSE_HEADERS: 'X-Api-Key, x-session ' }).maskedResponseHeaders).toEqual([
    'x-api-key',
    'x-session',
  ]);
});

test('JOBHOOKS_PUBLIC_URL is an http(s) URL, none by default; anything else is refused, naming it', () => {
  expect(loadConfig({}).publicUrl).toBeNull();
  expect(loadConfig({ JOBHOOKS_PUBLIC_URL: 'https://jobhooks.example.com' }).publicUrl).toBe(
    'https://jobhooks.example.com',
  );
  expect(() => loadConfig({ JOBHOOKS_PUBLIC_URL: 'jobhooks.example.com' })).toThrow(
    'JOBHOOKS_PUBLIC_URL: must be an http or https URL, such as https://jobhooks.example.com',
  );
});

describe('traces (the standard OTEL_* variables)', () => {
  test('are not exported unless an OTLP endpoint or OTEL_TRACES_EXPORTER=otlp asks', () => {
    expect(loadConfig({}).tracing).toBeNull();
    expect(loadConfig({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' }).tracing).toBeNull();
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'otlp' }).tracing?.url).toBe('http://localhost:4318/v1/traces');
  });

  test('an endpoint switches export on, with the defaults the specification gives', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing).toEqual({
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      resource: { 'service.name': 'jobhooks' },
      sampler: { name: 'parentbased_always_on', ratio: 1 },
      batch: {},
    });
  });

  test('the traces-only variables win over the general ones, and headers of both are merged', () => {
    const tracing = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/base/',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/in',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'api-key=general,x-team=data',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'api-key=for%20traces',
      OTEL_SERVICE_NAME: 'hooks-eu',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=ignored,deployment.environment.name=prod',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_BSP_SCHEDULE_DELAY: '500',
      OTEL_BSP_MAX_QUEUE_SIZE: '8192',
    }).tracing;
    expect(tracing).toEqual({
      url: 'https://traces.example.com/in',
      protocol: 'http/json',
      headers: { 'api-key': 'for traces', 'x-team': 'data' },
      resource: { 'service.name': 'hooks-eu', 'deployment.environment.name': 'prod' },
      sampler: { name: 'parentbased_traceidratio', ratio: 0.25 },
      batch: { scheduledDelayMillis: 500, maxQueueSize: 8192 },
    });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/base/' }).tracing?.url).toBe(
      'http://c:4318/base/v1/traces',
    );
  });

  test('OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none keep export off, endpoint or not', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(loadConfig({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' }).tracing).toBeNull();
    expect(loadConfig({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }).tracing).toBeNull();
    expect(loadConfig({ ...endpoint, OTEL_SDK_DISABLED: 'false' }).tracing).not.toBeNull();
  });

  test.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /OTEL_EXPORTER_OTLP_ENDPOINT: must be an http/],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://c' }, /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: must be an http/],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /OTEL_EXPORTER_OTLP_PROTOCOL: must be http\/protobuf or http\/json/],
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, /OTEL_TRACES_EXPORTER: must be otlp or none/],
    [{ OTEL_SDK_DISABLED: 'yes' }, /OTEL_SDK_DISABLED: must be true or false/],
    [{ OTEL_TRACES_SAMPLER: 'xray' }, /OTEL_TRACES_SAMPLER: must be one of always_on/],
    [{ OTEL_TRACES_SAMPLER_ARG: '1.5' }, /OTEL_TRACES_SAMPLER_ARG: must be a number from 0 to 1/],
    [{ OTEL_EXPORTER_OTLP_HEADERS: 'api-key' }, /OTEL_EXPORTER_OTLP_HEADERS: must be key=value pairs/],
    [{ OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'k=%E0%A4%A' }, /OTEL_EXPORTER_OTLP_TRACES_HEADERS: must be key=value/],
    [{ OTEL_BSP_MAX_QUEUE_SIZE: '0' }, /OTEL_BSP_MAX_QUEUE_SIZE: must be at least 1/],
  ])('%j is refused with a message naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
