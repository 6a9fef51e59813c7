// A SpanExporter whose OTLP/HTTP work (encoding, compression, posting, retries) runs in a worker thread, as the
// delivery requests do (delivery/sender-thread.ts): the main thread, which keeps SQLite, signing and the API, only
// copies each finished span's fields into a message. The thread runs the official OTLP exporter on them
// (trace-export-worker.ts); it is started with the first batch, and again after it stopped.
import { Worker } from 'node:worker_threads';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { workerEntry } from '../core/package-files';
import type { TracingSettings } from './tracing-config';

/** A finished span as plain data, which a message can carry. */
export interface SpanData {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  traceFlags: number;
  traceState: string | null;
  parent: { spanId: string; isRemote: boolean } | null;
  startTime: [number, number];
  endTime: [number, number];
  attributes: Record<string, string | number | boolean>;
  status: { code: number; message?: string };
  droppedAttributesCount: number;
}

/** What the thread is started with: where to export, and the resource every span belongs to. */
export type TraceExportOptions = Pick<TracingSettings, 'url' | 'protocol' | 'headers'> & {
  resource: Record<string, string>;
  scope: { name: string; version: string };
};

export type TraceExportRequest = { kind: 'export'; id: number; spans: SpanData[] } | { kind: 'close' };
/** `code` is ExportResultCode's: 0 exported, 1 failed. */
export type TraceExportReply = { kind: 'exported'; id: number; code: number; error: string | null };

/** ExportResultCode.FAILED of @opentelemetry/core. */
const EXPORT_FAILED = 1;
/** How long closing waits for the thread to send what it holds (the exporter's own timeout is 10 s). */
const CLOSE_GRACE_MS = 15_000;

/** The fields the OTLP encoders read, copied out of the SDK's span. */
export function spanDataOf(span: ReadableSpan): SpanData {
  const context = span.spanContext();
  const parent = span.parentSpanContext;
  return {
    name: span.name,
    kind: span.kind,
    traceId: context.traceId,
    spanId: context.spanId,
    traceFlags: context.traceFlags,
    traceState: context.traceState?.serialize() ?? null,
    parent: parent === undefined ? null : { spanId: parent.spanId, isRemote: parent.isRemote === true },
    startTime: span.startTime,
    endTime: span.endTime,
    attributes: span.attributes as SpanData['attributes'],
    status: span.status,
    droppedAttributesCount: span.droppedAttributesCount,
  };
}

type Done = Parameters<SpanExporter['export']>[1];

export function createThreadSpanExporter(options: TraceExportOptions): SpanExporter {
  const waiting = new Map<number, Done>();
  let nextId = 0;
  let worker: Worker | null = null;

  function currentWorker(): Worker {
    if (worker !== null) return worker;
    const entry = workerEntry(__dirname, 'trace-export-worker');
    const started = new Worker(entry.path, { workerData: options, execArgv: entry.execArgv });
    let failure = '';
    started.on('message', (reply: TraceExportReply) => {
      const done = waiting.get(reply.id);
      waiting.delete(reply.id);
      done?.({ code: reply.code, ...(reply.error === null ? {} : { error: new Error(reply.error) }) });
    });
    started.on('error', (error) => {
      failure = `: ${error.message}`;
    });
    started.on('exit', (code) => {
      if (worker === started) worker = null;
      const error = new Error(`The trace export thread stopped (exit code ${code})${failure}`);
      for (const [id, done] of waiting) {
        waiting.delete(id);
        done({ code: EXPORT_FAILED, error });
      }
    });
    worker = started;
    return started;
  }

  return {
    export(spans, done) {
      const id = nextId++;
      waiting.set(id, done);
      currentWorker().postMessage({ kind: 'export', id, spans: spans.map(spanDataOf) } satisfies TraceExportRequest);
    },
    async shutdown() {
      const thread = worker;
      if (thread === null) return;
      const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
      thread.postMessage({ kind: 'close' } satisfies TraceExportRequest);
      const timer = setTimeout(() => void thread.terminate(), CLOSE_GRACE_MS);
      await exited;
      clearTimeout(timer);
    },
    // The batch processor waits for each export's callback: nothing is held here between exports.
    forceFlush: () => Promise.resolve(),
  };
}
