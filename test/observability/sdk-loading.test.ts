// Traces off cost nothing: a service started without OTEL_* never loads the OpenTelemetry SDK (each attempt's
// traceparent is made from random ids alone); configured, it loads it. Runs the built service in a process of its
// own, whose loaded modules are its own (`npm run build` first).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SCRIPT = join(__dirname, 'fixtures', 'loaded-packages.js');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'jobhooks-sdk-loading-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function loadedWith(env: Record<string, string>): string[] {
  const output = execFileSync(process.execPath, [SCRIPT, join(dir, 'jobhooks.db'), JSON.stringify(env)], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return JSON.parse(output) as string[];
}

/** The API package alone is a no-op; prom-client loads it for its own use, tracing or not. */
const beyondTheApi = (names: string[]) => names.filter((name) => name !== '@opentelemetry/api');

test('without OTEL_* no OpenTelemetry SDK package is loaded; with an endpoint the SDK is', () => {
  expect(beyondTheApi(loadedWith({}))).toEqual([]);
  expect(
    beyondTheApi(loadedWith({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_SDK_DISABLED: 'true' })),
  ).toEqual([]);
  expect(loadedWith({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' })).toEqual(
    expect.arrayContaining(['@opentelemetry/resources', '@opentelemetry/sdk-trace-base']),
  );
});
