// A real OTLP/HTTP trace receiver on 127.0.0.1, port 0, as a collector would be: it takes POST /v1/traces in
// either encoding the exporter sends (JSON, or protobuf decoded with protobufjs from the OTLP messages' own field
// numbers) and keeps every span it decoded, with its resource.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';

export type AttributeValue = string | number | boolean;

export interface CollectedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 2 server, 3 client. */
  kind: number;
  /** When the span began, in nanoseconds since the epoch, as digits. */
  startTimeUnixNano: string;
  attributes: Record<string, AttributeValue>;
  /** OTLP's StatusCode: 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  resource: Record<string, AttributeValue>;
}

export interface OtlpCollector {
  /** The base endpoint, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  endpoint: string;
  spans: CollectedSpan[];
  /** Each export request's path, content type and headers, in order. */
  requests: Array<{ path: string; contentType: string; headers: IncomingHttpHeaders }>;
  /** Answers every export with this status from now on (200 by default), as a collector that refuses would. */
  answerWith(status: number): void;
  close(): Promise<void>;
}

/**
 * The OTLP trace messages (opentelemetry-proto, collector/trace/v1 and trace/v1), with the fields this receiver
 * reads under their own numbers; protobuf skips the others.
 */
const OTLP_TRACE_MESSAGES = {
  nested: {
    ExportTraceServiceRequest: { fields: { resourceSpans: { rule: 'repeated', type: 'ResourceSpans', id: 1 } } },
    ResourceSpans: {
      fields: { resource: { type: 'Resource', id: 1 }, scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 } },
    },
    Resource: { fields: { attributes: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
    ScopeSpans: { fields: { spans: { rule: 'repeated', type: 'Span', id: 2 } } },
    Span: {
      fields: {
        traceId: { type: 'bytes', id: 1 },
        spanId: { type: 'bytes', id: 2 },
        traceState: { type: 'string', id: 3 },
        parentSpanId: { type: 'bytes', id: 4 },
        name: { type: 'string', id: 5 },
        kind: { type: 'int32', id: 6 },
        startTimeUnixNano: { type: 'fixed64', id: 7 },
        endTimeUnixNano: { type: 'fixed64', id: 8 },
        attributes: { rule: 'repeated', type: 'KeyValue', id: 9 },
        status: { type: 'Status', id: 15 },
      },
    },
    Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } },
    KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
    AnyValue: {
      oneofs: { value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue'] } },
      fields: {
        stringValue: { type: 'string', id: 1 },
        boolValue: { type: 'bool', id: 2 },
        intValue: { type: 'int64', id: 3 },
        doubleValue: { type: 'double', id: 4 },
      },
    },
  },
};
const ExportTraceServiceRequest = protobuf.Root.fromJSON(OTLP_TRACE_MESSAGES).lookupType('ExportTraceServiceRequest');

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
}
interface KeyValue {
  key: string;
  value?: AnyValue;
}
/** An export request as both encodings decode: ids as hex (JSON) or bytes (protobuf). */
interface DecodedRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string | Uint8Array;
        spanId: string | Uint8Array;
        parentSpanId?: string | Uint8Array;
        name: string;
        kind?: number;
        startTimeUnixNano?: string | number;
        attributes?: KeyValue[];
        status?: { code?: number; message?: string };
      }>;
    }>;
  }>;
}

const hex = (id: string | Uint8Array | undefined): string =>
  id === undefined ? '' : typeof id === 'string' ? id : Buffer.from(id).toString('hex');

function valueOf(value: AnyValue | undefined): AttributeValue {
  if (value?.stringValue !== undefined) return value.stringValue;
  if (value?.boolValue !== undefined) return value.boolValue;
  if (value?.intValue !== undefined) return Number(value.intValue);
  if (value?.doubleValue !== undefined) return value.doubleValue;
  throw new Error(`an attribute value of a kind this receiver does not read: ${JSON.stringify(value)}`);
}

const attributesOf = (list: KeyValue[] | undefined): Record<string, AttributeValue> =>
  Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));

function decode(body: Buffer, contentType: string): DecodedRequest {
  if (contentType.startsWith('application/json')) return JSON.parse(body.toString('utf8')) as DecodedRequest;
  if (contentType.startsWith('application/x-protobuf'))
    return ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), {
      longs: String,
    }) as DecodedRequest;
  throw new Error(`an export of content type ${contentType}`);
}

/** The spans of one export request's body, as its content type encodes them. */
export function spansIn(body: Buffer, contentType: string): CollectedSpan[] {
  return spansOf(decode(body, contentType));
}

function spansOf(request: DecodedRequest): CollectedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: hex(span.traceId),
        spanId: hex(span.spanId),
        parentSpanId: hex(span.parentSpanId),
        name: span.name,
        kind: span.kind ?? 0,
        startTimeUnixNano: String(span.startTimeUnixNano ?? ''),
        attributes: attributesOf(span.attributes),
        status: { code: span.status?.code ?? 0, message: span.status?.message ?? '' },
        resource,
      })),
    );
  });
}

export async function startOtlpCollector(): Promise<OtlpCollector> {
  const spans: CollectedSpan[] = [];
  const requests: OtlpCollector['requests'] = [];
  let status = 200;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const contentType = req.headers['content-type'] ?? '';
      requests.push({ path: req.url ?? '', contentType, headers: req.headers });
      if (status !== 200) {
        res.writeHead(status, { 'content-type': 'text/plain' }).end('refused');
        return;
      }
      try {
        const raw = Buffer.concat(chunks);
        const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
        spans.push(...spansIn(body, contentType));
        // An empty ExportTraceServiceResponse: everything was accepted.
        if (contentType.startsWith('application/json'))
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      } catch (error) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    requests,
    answerWith: (next) => {
      status = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
