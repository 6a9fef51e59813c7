// The trace export thread's entry point (see trace-export-thread.ts): rebuilds each span the main thread sent as
// the SDK's ReadableSpan and hands the batch to the official OTLP/HTTP exporter (JSON or protobuf).
import { parentPort, workerData } from 'node:worker_threads';
import { createTraceState, type SpanContext } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { SpanData, TraceExportOptions, TraceExportReply, TraceExportRequest } from './trace-export-thread';

function exporterOf(options: TraceExportOptions): SpanExporter {
  const config = { url: options.url, headers: options.headers };
  return options.protocol === 'http/json' ? new JsonTraceExporter(config) : new ProtobufTraceExporter(config);
}

function durationOf(start: [number, number], end: [number, number]): [number, number] {
  const nanos = (end[0] - start[0]) * 1e9 + (end[1] - start[1]);
  return [Math.floor(nanos / 1e9), nanos % 1e9];
}

/** The span as the exporter reads it; one resource and scope for all, as the main thread's provider has. */
function readableSpanOf(data: SpanData, shared: Pick<ReadableSpan, 'resource' | 'instrumentationScope'>): ReadableSpan {
  const context: SpanContext = {
    traceId: data.traceId,
    spanId: data.spanId,
    traceFlags: data.traceFlags,
    ...(data.traceState === null ? {} : { traceState: createTraceState(data.traceState) }),
  };
  return {
    ...shared,
    name: data.name,
    kind: data.kind,
    spanContext: () => context,
    ...(data.parent === null
      ? {}
      : { parentSpanContext: { traceId: data.traceId, traceFlags: data.traceFlags, ...data.parent } }),
    startTime: data.startTime,
    endTime: data.endTime,
    duration: durationOf(data.startTime, data.endTime),
    ended: true,
    status: data.status,
    attributes: data.attributes,
    links: [],
    events: [],
    droppedAttributesCount: data.droppedAttributesCount,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

if (parentPort === null)
  throw new Error('trace-export-worker runs only as a worker thread (see trace-export-thread.ts)');
const port = parentPort;
const options = workerData as TraceExportOptions;
const exporter = exporterOf(options);
const shared = { resource: resourceFromAttributes(options.resource), instrumentationScope: options.scope };

port.on('message', (message: TraceExportRequest) => {
  if (message.kind === 'close') {
    // The exporter sends what it still has, then the thread ends (its keep-alive sockets would hold it open).
    void exporter.shutdown().finally(() => process.exit(0));
    return;
  }
  const spans = message.spans.map((data) => readableSpanOf(data, shared));
  exporter.export(spans, (result) =>
    port.postMessage({
      kind: 'exported',
      id: message.id,
      code: result.code,
      error: result.error?.message ?? null,
    } satisfies TraceExportReply),
  );
});
