// What exported traces cost (`npm run bench -- --only=tracing`): the same delivery throughput and steady-rate
// latency runs as the whole bench, once with traces off (the default: only the traceparent header) and once
// exported over OTLP/HTTP (protobuf, the default protocol) to a receiver in the bench, each on a new service and
// database; then whether every span arrived. Spans are counted from the receiver's bodies after the runs, so
// decoding them takes nothing from the service while it is measured.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhooksClient, type WebhooksClient } from '@jobhooks/client';
import { spansIn } from '../test/support/otlp-collector';
import type { ServiceProcess } from '../test/support/service-process';
import { ratio, TOKEN } from './load';
import { type BenchReceiver, startBenchReceiver } from './receiver';

type Run<T> = (service: ServiceProcess, receiver: BenchReceiver, client: WebhooksClient) => Promise<T>;

export interface TracingOptions {
  /** Starts a service on a new database, with `env` added to its environment. */
  start: (label: string, env: Record<string, string>) => Promise<ServiceProcess>;
  accountId: number;
  throughput: Run<{ perSecond: number; deliveries: number }>;
  latency: Run<{ p50: number; p99: number }>;
}

export type TracingFigures = Record<string, number>;

/** An OTLP/HTTP receiver that keeps each export's body, answering at once, and decodes them only when asked. */
async function startBodyKeeper() {
  const bodies: Array<{ body: Buffer; contentType: string }> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      bodies.push({ body: Buffer.concat(chunks), contentType: request.headers['content-type'] ?? '' });
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spanNames: () => bodies.flatMap(({ body, contentType }) => spansIn(body, contentType).map((span) => span.name)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** One phase: a new service and receiver, the throughput run, then the latency run; stopped (and flushed) after. */
async function phase(options: TracingOptions, label: string, env: Record<string, string>) {
  const receiver = await startBenchReceiver();
  const service = await options.start(label, env);
  try {
    const client = createWebhooksClient({ hostUrl: service.baseUrl, accountId: options.accountId, token: TOKEN });
    const throughput = await options.throughput(service, receiver, client);
    const latency = await options.latency(service, receiver, client);
    if (receiver.badSignatures() > 0) throw new Error(`${receiver.badSignatures()} deliveries had a bad signature`);
    return { throughput, latency, delivered: receiver.delivered(), events: receiver.arrivals.size };
  } finally {
    // SIGTERM closes the service, which exports the spans it still holds before it exits.
    await service.signal('SIGTERM');
    await receiver.close();
  }
}

export async function tracingScenario(options: TracingOptions): Promise<TracingFigures> {
  const off = await phase(options, 'traces-off', {});
  const collector = await startBodyKeeper();
  try {
    const on = await phase(options, 'traces-on', { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint });
    const names = collector.spanNames();
    const count = (name: string) => names.filter((candidate) => candidate === name).length;
    return {
      traces_off_delivery_per_s: Math.round(off.throughput.perSecond),
      traces_on_delivery_per_s: Math.round(on.throughput.perSecond),
      traces_delivery_ratio: ratio(on.throughput.perSecond, off.throughput.perSecond),
      traces_off_p50_ms: Number(off.latency.p50.toFixed(1)),
      traces_off_p99_ms: Number(off.latency.p99.toFixed(1)),
      traces_on_p50_ms: Number(on.latency.p50.toFixed(1)),
      traces_on_p99_ms: Number(on.latency.p99.toFixed(1)),
      traces_ingestion_spans: count('jobhooks.ingest'),
      traces_events: on.events,
      traces_attempt_spans: count('jobhooks.attempt'),
      traces_deliveries: on.delivered,
    };
  } finally {
    await collector.close();
  }
}

export function tracingLines(f: TracingFigures): string[] {
  return [
    `  delivery, traces off (traceparent only)   ${f.traces_off_delivery_per_s} deliveries/s`,
    `  delivery, traces exported (OTLP/HTTP)     ${f.traces_on_delivery_per_s} deliveries/s   traces_delivery_ratio ${f.traces_delivery_ratio}`,
    `  latency, traces off                       p50 ${f.traces_off_p50_ms} ms, p99 ${f.traces_off_p99_ms} ms`,
    `  latency, traces exported                  p50 ${f.traces_on_p50_ms} ms, p99 ${f.traces_on_p99_ms} ms`,
    `  spans received                            ${f.traces_ingestion_spans} ingestion of ${f.traces_events} events, ${f.traces_attempt_spans} attempts of ${f.traces_deliveries} deliveries`,
  ];
}
