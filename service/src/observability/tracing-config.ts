// The standard OTEL_* variables that switch trace export on and say where to (docs/tracing.md#settings): read
// with the rest of the configuration (config.ts), so a bad value stops the start with the variable's name.
import { z } from 'zod';

export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

export const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type SamplerName = (typeof SAMPLERS)[number];

/** Where and how spans are exported; null in Config when traces are not exported. */
export interface TracingSettings {
  /** The OTLP/HTTP traces URL spans are posted to. */
  url: string;
  protocol: OtlpProtocol;
  /** Sent with every export (e.g. a collector's API key). */
  headers: Record<string, string>;
  /** The resource's attributes: service.name and OTEL_RESOURCE_ATTRIBUTES. */
  resource: Record<string, string>;
  sampler: { name: SamplerName; ratio: number };
  /** The batch span processor's limits (OTEL_BSP_*); undefined keeps the SDK's default. */
  batch: {
    scheduledDelayMillis?: number;
    exportTimeoutMillis?: number;
    maxQueueSize?: number;
    maxExportBatchSize?: number;
  };
}

/** The spec's default OTLP/HTTP endpoint, used when OTEL_TRACES_EXPORTER=otlp names no endpoint. */
const DEFAULT_ENDPOINT = 'http://localhost:4318';
const TRACES_PATH = 'v1/traces';
export const DEFAULT_SERVICE_NAME = 'jobhooks';

const httpUrl = z
  .string()
  .refine(
    (value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol),
    'must be an http:// or https:// URL',
  );

/** `key=value` pairs separated by commas, values percent-encoded (the W3C Baggage form the spec uses). */
const keyValues = z.string().transform((value, ctx) => {
  const pairs: Record<string, string> = {};
  for (const entry of value.split(',')) {
    if (entry.trim() === '') continue;
    const equals = entry.indexOf('=');
    const key = entry.slice(0, Math.max(equals, 0)).trim();
    let decoded: string | null = null;
    try {
      decoded = equals > 0 ? decodeURIComponent(entry.slice(equals + 1).trim()) : null;
    } catch {
      decoded = null;
    }
    if (key === '' || decoded === null) {
      ctx.addIssue({ code: 'custom', message: 'must be key=value pairs separated by commas, values percent-encoded' });
      return z.NEVER;
    }
    pairs[key] = decoded;
  }
  return pairs;
});

const protocol = z.enum(OTLP_PROTOCOLS, {
  message: 'must be http/protobuf or http/json (jobhooks exports over OTLP/HTTP; grpc is not supported)',
});
const wholeNumber = z.string().regex(/^\d+$/, 'must be a whole number').transform(Number);

/** The variables, as config.ts's schema reads them (an empty variable is unset). */
export const OTEL_ENV_SHAPE = {
  OTEL_SDK_DISABLED: z
    .string()
    .regex(/^(true|false)$/i, 'must be true or false')
    .transform((value) => value.toLowerCase() === 'true')
    .optional(),
  OTEL_TRACES_EXPORTER: z
    .string()
    .transform((value) => value.split(',').map((name) => name.trim().toLowerCase()))
    .refine(
      (names) => names.every((name) => name === 'otlp' || name === 'none'),
      'must be otlp or none (jobhooks exports traces over OTLP/HTTP only)',
    )
    .optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl.optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl.optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol.optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol.optional(),
  OTEL_EXPORTER_OTLP_HEADERS: keyValues.optional(),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: keyValues.optional(),
  OTEL_SERVICE_NAME: z.string().optional(),
  OTEL_RESOURCE_ATTRIBUTES: keyValues.optional(),
  OTEL_TRACES_SAMPLER: z.enum(SAMPLERS, { message: `must be one of ${SAMPLERS.join(', ')}` }).optional(),
  OTEL_TRACES_SAMPLER_ARG: z
    .string()
    .regex(/^\s*(0(\.\d+)?|1(\.0+)?|\.\d+)\s*$/, 'must be a number from 0 to 1')
    .transform(Number)
    .optional(),
  OTEL_BSP_SCHEDULE_DELAY: wholeNumber.optional(),
  OTEL_BSP_EXPORT_TIMEOUT: wholeNumber.pipe(z.number().min(1, 'must be at least 1')).optional(),
  OTEL_BSP_MAX_QUEUE_SIZE: wholeNumber.pipe(z.number().min(1, 'must be at least 1')).optional(),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: wholeNumber.pipe(z.number().min(1, 'must be at least 1')).optional(),
};

type OtelEnv = { [K in keyof typeof OTEL_ENV_SHAPE]?: z.output<(typeof OTEL_ENV_SHAPE)[K]> };

/** The base endpoint with the traces path appended, as the spec says for OTEL_EXPORTER_OTLP_ENDPOINT. */
function tracesUrlOf(base: string): string {
  return `${base.endsWith('/') ? base : `${base}/`}${TRACES_PATH}`;
}

/**
 * Traces are exported when an OTLP endpoint is set, or OTEL_TRACES_EXPORTER asks for otlp (to the spec's default
 * endpoint); never with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none. The signal-specific variables win.
 */
export function tracingSettingsOf(env: OtelEnv): TracingSettings | null {
  if (env.OTEL_SDK_DISABLED === true) return null;
  const exporters = env.OTEL_TRACES_EXPORTER;
  if (exporters !== undefined && !exporters.includes('otlp')) return null;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT ?? (exporters === undefined ? undefined : DEFAULT_ENDPOINT);
  const url = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base === undefined ? undefined : tracesUrlOf(base));
  if (url === undefined) return null;
  const resource = { ...env.OTEL_RESOURCE_ATTRIBUTES };
  resource['service.name'] = env.OTEL_SERVICE_NAME ?? resource['service.name'] ?? DEFAULT_SERVICE_NAME;
  const batch = {
    scheduledDelayMillis: env.OTEL_BSP_SCHEDULE_DELAY,
    exportTimeoutMillis: env.OTEL_BSP_EXPORT_TIMEOUT,
    maxQueueSize: env.OTEL_BSP_MAX_QUEUE_SIZE,
    maxExportBatchSize: env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
  };
  return {
    url,
    protocol: env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
    headers: { ...env.OTEL_EXPORTER_OTLP_HEADERS, ...env.OTEL_EXPORTER_OTLP_TRACES_HEADERS },
    resource,
    sampler: { name: env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on', ratio: env.OTEL_TRACES_SAMPLER_ARG ?? 1 },
    batch: Object.fromEntries(Object.entries(batch).filter(([, value]) => value !== undefined)),
  };
}
