// Exported traces (docs/tracing.md): the OpenTelemetry SDK makes the ingestion and attempt spans, and a thread of
// their own posts them over OTLP/HTTP in batches (trace-export-thread.ts). wiring.ts loads this module only when
// OTEL_* asks for export, so without it the SDK is never loaded. Every span is made on the main thread, where
// ingestion runs and where each attempt's outcome comes back from the sender thread: one tracer provider and one
// exporter per process.
import { hostname } from 'node:os';
import {
  createTraceState,
  ROOT_CONTEXT,
  type Context,
  type HrTime,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
} from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_RESEND_COUNT,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_SERVICE_INSTANCE_ID,
  ATTR_SERVICE_VERSION,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import { type Clock, nowMillis } from '../core/clock';
import { cleanTracestate, type EventTrace, formatTraceparent, parseTraceparent, traceOf } from '../core/trace-context';
import type { AttemptEnd, AttemptSpan, AttemptStart, IngestionSpan, IncomingTrace, Tracing } from '../core/tracing';
import { VERSION } from '../core/version';
import type { Micros } from '../core/time';
import { createThreadSpanExporter } from './trace-export-thread';
import type { SamplerName, TracingSettings } from './tracing-config';

/** The span names (docs/tracing.md#spans-and-their-attributes). */
export const SPAN_NAMES = { ingestion: 'jobhooks.ingest', attempt: 'jobhooks.attempt' } as const;
const INGESTION_ROUTE = '/api/v3/accounts/{account_id}/webhooks/events';
/** A failed export is logged at most once per this interval, with how many failed since. */
const EXPORT_FAILURE_LOG_INTERVAL_MS = 60_000;
/** ExportResultCode.SUCCESS of @opentelemetry/core, which this service does not depend on by name. */
const EXPORT_SUCCEEDED = 0;

export interface OtelTracingDeps {
  clock: Clock;
  /** Told, at most once a minute, that spans could not be exported. */
  onExportError: (message: string) => void;
}

function samplerOf(name: SamplerName, ratio: number): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}

/** An exporter that says when a batch could not be sent, instead of the SDK's silent global handler. */
function reportingExporter(inner: SpanExporter, deps: OtelTracingDeps): SpanExporter {
  let lastLoggedAt = -Infinity;
  let unlogged = 0;
  return {
    export(spans: ReadableSpan[], done) {
      inner.export(spans, (result) => {
        if (result.code !== EXPORT_SUCCEEDED) {
          const now = nowMillis(deps.clock);
          if (now - lastLoggedAt >= EXPORT_FAILURE_LOG_INTERVAL_MS) {
            const more = unlogged > 0 ? `; ${unlogged} more batches failed since the last report` : '';
            deps.onExportError(
              `${spans.length} spans could not be exported (${result.error?.message ?? 'unknown error'})${more}`,
            );
            lastLoggedAt = now;
            unlogged = 0;
          } else unlogged += 1;
        }
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

/** The service's clock as OpenTelemetry's time: seconds and nanoseconds since the epoch. */
function hrTimeOf(clock: Clock): HrTime {
  const nanos = clock.nowNanos();
  return [Number(nanos / 1_000_000_000n), Number(nanos % 1_000_000_000n)];
}

/** A time in microseconds since the epoch as OpenTelemetry's time. */
function hrTimeOfMicros(micros: Micros): HrTime {
  return [Math.floor(micros / 1_000_000), (micros % 1_000_000) * 1000];
}

/** A context whose remote parent is the span a `traceparent` names, with its `tracestate`. */
function remoteParent(
  parent: { traceId: string; spanId: string; sampled: boolean },
  tracestate: string | null,
): Context {
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: parent.traceId,
    spanId: parent.spanId,
    traceFlags: parent.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
    isRemote: true,
    ...(tracestate === null ? {} : { traceState: createTraceState(tracestate) }),
  });
}

/** The W3C context of a span the SDK made (recording or not): its ids, its sampled flag, its trace state. */
function eventTraceOf(span: Span): EventTrace {
  const context = span.spanContext();
  const tracestate = context.traceState?.serialize() ?? '';
  return {
    traceparent: formatTraceparent({
      traceId: context.traceId,
      spanId: context.spanId,
      sampled: (context.traceFlags & TraceFlags.SAMPLED) !== 0,
    }),
    tracestate: tracestate === '' ? null : tracestate,
  };
}

function parentOfIngestion(incoming: IncomingTrace): Context {
  const parent = parseTraceparent(incoming.traceparent);
  return parent === null ? ROOT_CONTEXT : remoteParent(parent, cleanTracestate(incoming.tracestate));
}

/** The attributes an attempt's span starts with: where it goes, and which event, delivery and attempt it is. */
function attemptAttributes(start: AttemptStart) {
  const url = new URL(start.url);
  const { target } = start;
  return {
    [ATTR_HTTP_REQUEST_METHOD]: 'POST',
    // An IPv6 address without the brackets a URL puts around it.
    [ATTR_SERVER_ADDRESS]: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    [ATTR_SERVER_PORT]: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
    [ATTR_URL_SCHEME]: url.protocol.slice(0, -1),
    ...(target.attempt > 1 ? { [ATTR_HTTP_REQUEST_RESEND_COUNT]: target.attempt - 1 } : {}),
    'jobhooks.event.id': target.eventId,
    'jobhooks.event.type': target.eventType,
    'jobhooks.webhook.id': target.webhookId,
    ...(target.deliveryId === null ? {} : { 'jobhooks.delivery.id': target.deliveryId }),
    'jobhooks.attempt': target.attempt,
    ...(start.isTest ? { 'jobhooks.attempt.test': true } : {}),
    ...(start.byPerson && !start.isTest ? { 'jobhooks.attempt.manual': true } : {}),
  };
}

function endAttempt(span: Span, clock: Clock, result: AttemptEnd): void {
  span.setAttributes({
    'jobhooks.attempt.outcome': result.outcome,
    'jobhooks.attempt.duration_ms': result.durationMs,
    ...(result.status === null ? {} : { [ATTR_HTTP_RESPONSE_STATUS_CODE]: result.status }),
  });
  if (result.outcome !== 'succeeded') {
    // The status code as text, as the HTTP conventions say, or the failure's kind when no response came.
    span.setAttribute(ATTR_ERROR_TYPE, result.status === null ? 'no_response' : String(result.status));
    span.setStatus({ code: SpanStatusCode.ERROR, message: result.error ?? result.outcome });
  }
  span.end(hrTimeOf(clock));
}

/** A Tracing that exports spans as `settings` say; close() sends what is buffered and stops. */
export function createOtelTracing(settings: TracingSettings, deps: OtelTracingDeps): Tracing {
  const { clock } = deps;
  const resource = {
    ...settings.resource,
    [ATTR_SERVICE_VERSION]: VERSION,
    // Each instance is told apart in traces: several may serve one PostgreSQL database.
    [ATTR_SERVICE_INSTANCE_ID]: `${hostname()}:${process.pid}`,
  };
  const scope = { name: 'jobhooks', version: VERSION };
  const { url, protocol, headers } = settings;
  const exporter = createThreadSpanExporter({ url, protocol, headers, resource, scope });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes(resource),
    sampler: samplerOf(settings.sampler.name, settings.sampler.ratio),
    spanProcessors: [new BatchSpanProcessor(reportingExporter(exporter, deps), settings.batch)],
  });
  const tracer = provider.getTracer(scope.name, scope.version);

  function ingestion(incoming: IncomingTrace): IngestionSpan {
    const span = tracer.startSpan(
      SPAN_NAMES.ingestion,
      {
        kind: SpanKind.SERVER,
        startTime: hrTimeOf(clock),
        attributes: { [ATTR_HTTP_REQUEST_METHOD]: 'POST', [ATTR_HTTP_ROUTE]: INGESTION_ROUTE },
      },
      parentOfIngestion(incoming),
    );
    return {
      trace: eventTraceOf(span),
      end(result) {
        span.setAttributes({
          'jobhooks.account.id': result.accountId,
          'jobhooks.event.id': result.eventId,
          'jobhooks.event.type': result.eventType,
          'jobhooks.run.id': result.runId,
          'jobhooks.job.id': result.jobId,
          'jobhooks.event.duplicate': result.duplicate,
          'jobhooks.deliveries.queued': result.queued,
          'jobhooks.deliveries.skipped': result.skipped,
        });
        span.end(hrTimeOf(clock));
      },
      fail(error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
        span.end(hrTimeOf(clock));
      },
    };
  }

  function attempt(start: AttemptStart, startedAt: Micros): AttemptSpan {
    const parent =
      start.trace === null ? ROOT_CONTEXT : remoteParent(traceOf(start.trace.traceparent), start.trace.tracestate);
    const startTime = hrTimeOfMicros(startedAt);
    const span = tracer.startSpan(SPAN_NAMES.attempt, { kind: SpanKind.CLIENT, startTime }, parent);
    // An attempt the sampler left out has a span id for its traceparent, and nothing more is computed for it.
    if (span.isRecording()) span.setAttributes(attemptAttributes(start));
    const { traceparent, tracestate } = eventTraceOf(span);
    return {
      traceparent,
      tracestate,
      end: (result) => {
        if (span.isRecording()) endAttempt(span, clock, result);
      },
    };
  }

  // The last batches' export may fail like any other (the exporter has reported it): closing the service goes on.
  // The provider then skips stopping its exporter, so the export thread is stopped here in any case.
  const close = async () => {
    await provider.shutdown().catch(() => undefined);
    await exporter.shutdown();
  };
  return { exporting: true, ingestion, attempt, close };
}
