// Reads and validates the service's configuration from the environment, failing fast with the variable's name.
import { resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { DELIVERY_RULES, durationText } from '@jobhooks/client/contract';
import { ConfigurationError } from './core/errors';
import { DEFAULT_RETRY_DELAYS_SECONDS, RETRIES_PER_DELIVERY } from './delivery/retry-policy';
import { OTEL_ENV_SHAPE, type TracingSettings, tracingSettingsOf } from './observability/tracing-config';

const flag = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off', ''])
  .transform((value) => ['1', 'true', 'yes', 'on'].includes(value));

/**
 * An IPv4 address written as four decimal numbers, or an IPv6 address: what a person means by an address. A URL
 * parser's other forms of IPv4 would read "2" (a count of proxies, meant) as the address 0.0.0.2.
 */
const isAddress = (text: string) => ipaddr.IPv4.isValidFourPartDecimal(text) || ipaddr.IPv6.isValid(text);
const isRange = (text: string) => {
  const [address, bits, ...rest] = text.split('/');
  return rest.length === 0 && bits !== undefined && isAddress(address!) && ipaddr.isValidCIDR(text);
};

/** JOBHOOKS_TRUST_PROXY: a flag (any proxy, or none), or the proxies' addresses and CIDR ranges. */
const trustProxy = z
  .string()
  .refine(
    (value) =>
      flag.safeParse(value).success || value.split(',').every((part) => isAddress(part.trim()) || isRange(part.trim())),
    "must be 1 (any proxy), 0, or the proxies' addresses (such as 10.0.0.5) or CIDR ranges separated by commas",
  )
  .transform((value) => {
    const asFlag = flag.safeParse(value);
    return asFlag.success ? asFlag.data : value;
  });

const wholeNumber = z.string().regex(/^\d+$/, 'must be a whole number').transform(Number);
const positiveInt = wholeNumber.pipe(z.number().int().min(1));

/** The longest retry delay: as long as a delivery and its log are kept, after which a retry would find neither. */
const LONGEST_RETRY_DELAY_SECONDS = DELIVERY_RULES.logRetentionDays * 86_400;

/** Five retry delays in seconds (five retries: docs/decisions.md#8-retries), e.g. "5,300,1800,7200,18000". */
const retrySchedule = z
  .string()
  .regex(/^\s*\d+(\.\d+)?(\s*,\s*\d+(\.\d+)?)*\s*$/, 'must be comma-separated numbers of seconds')
  .transform((value) => value.split(',').map(Number))
  .refine(
    (delays) => delays.length === RETRIES_PER_DELIVERY,
    `must list exactly ${RETRIES_PER_DELIVERY} delays (one per retry)`,
  )
  .refine(
    (delays) => delays.every((delay) => delay <= LONGEST_RETRY_DELAY_SECONDS),
    `must have each delay at most ${LONGEST_RETRY_DELAY_SECONDS} seconds (${durationText(LONGEST_RETRY_DELAY_SECONDS)}, as long as a delivery is kept)`,
  );

/** A whole number from 1 to `max`, with why it stops there. */
const upTo = (max: number, why: string) =>
  positiveInt.pipe(z.number().max(max, `must be at most ${max.toLocaleString('en-US')} (${why})`));

/** JOBHOOKS_MASKED_RESPONSE_HEADERS: header names (HTTP tokens) separated by commas. */
const headerNames = z
  .string()
  .regex(
    /^\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s*,\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*\s*$/,
    'must be header names separated by commas',
  )
  .transform((value) => value.split(',').map((name) => name.trim().toLowerCase()));

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const EnvSchema = z
  .object({
    HOST: z.string().min(1).default('127.0.0.1'),
    PORT: z
      .string()
      .regex(/^\d+$/, 'must be a port number')
      .transform(Number)
      .pipe(z.number().int().min(0).max(65535))
      .default(8080),
    JOBHOOKS_DB: z.string().min(1).default('./data/jobhooks.db'),
    JOBHOOKS_DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\/./i, 'must be a postgres:// or postgresql:// URL (leave it unset for SQLite)')
      // Never quoted back: it may hold a password.
      .refine(
        (url) => URL.canParse(url),
        'cannot be read as a URL (postgres://user:password@host:5432/database; a port is digits, special characters in the password are percent-encoded)',
      )
      .optional(),
    JOBHOOKS_DATABASE_POOL_SIZE: positiveInt
      .pipe(
        z
          .number()
          .min(2, 'must be at least 2: work done once for the cluster holds a connection while it uses another'),
      )
      .default(10),
    JOBHOOKS_SECRET_KEY: z.string().optional(),
    JOBHOOKS_BOOTSTRAP_ACCOUNT_ID: positiveInt.optional(),
    JOBHOOKS_BOOTSTRAP_TOKEN: z.string().min(20, 'must be at least 20 characters').optional(),
    JOBHOOKS_RATE_LIMIT_PER_MINUTE: positiveInt.default(5000),
    JOBHOOKS_INGEST_RATE_LIMIT_PER_MINUTE: positiveInt.default(60_000),
    JOBHOOKS_FAILED_SIGN_INS_PER_MINUTE: positiveInt.default(30),
    JOBHOOKS_DURABILITY: z.enum(['full', 'normal'], { message: 'must be full or normal' }).default('full'),
    JOBHOOKS_TRUST_PROXY: trustProxy.optional(),
    JOBHOOKS_MAX_SUBSCRIPTIONS_PER_ACCOUNT: positiveInt.default(1000),
    JOBHOOKS_ALLOW_PRIVATE_URLS: flag.default(false),
    JOBHOOKS_RETRY_SCHEDULE: retrySchedule.optional(),
    JOBHOOKS_DELIVERY_CONCURRENCY: upTo(10_000, 'each request in flight holds a socket and its memory').default(256),
    JOBHOOKS_DELIVERY_CONCURRENCY_PER_ENDPOINT: upTo(
      10_000,
      'each request in flight holds a socket and its memory',
    ).default(16),
    // Longer than an attempt's 10 s limit, or a slow attempt's delivery would be claimed twice.
    JOBHOOKS_DELIVERY_LEASE_SECONDS: positiveInt.pipe(z.number().min(15, 'must be at least 15')).default(60),
    JOBHOOKS_METRICS_MAX_AGE_SECONDS: wholeNumber
      .pipe(z.number().max(3600, 'must be at most 3600 (an hour): older gauges tell nothing of now'))
      .default(15),
    JOBHOOKS_MASKED_RESPONSE_HEADERS: headerNames.optional(),
    JOBHOOKS_PUBLIC_URL: z
      .url({ protocol: /^https?$/, message: 'must be an http or https URL, such as https://jobhooks.example.com' })
      .optional(),
    LOG_LEVEL: z.enum(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
    ...OTEL_ENV_SHAPE,
  })
  .refine((env) => env.JOBHOOKS_DATABASE_URL === undefined || env.JOBHOOKS_SECRET_KEY !== undefined, {
    message:
      'must be set with JOBHOOKS_DATABASE_URL: every instance seals and opens webhook secrets with the same key, and PostgreSQL has no database folder to keep a key file in',
    path: ['JOBHOOKS_SECRET_KEY'],
  })
  .refine((env) => (env.JOBHOOKS_BOOTSTRAP_ACCOUNT_ID === undefined) === (env.JOBHOOKS_BOOTSTRAP_TOKEN === undefined), {
    message: 'JOBHOOKS_BOOTSTRAP_ACCOUNT_ID and JOBHOOKS_BOOTSTRAP_TOKEN must be set together',
    path: ['JOBHOOKS_BOOTSTRAP_TOKEN'],
  });

export interface Config {
  host: string;
  port: number;
  /** The SQLite file (and the folder of its key file); unused when `postgres` is set. */
  databasePath: string;
  /** PostgreSQL instead of SQLite (JOBHOOKS_DATABASE_URL), with this instance's pool size; null for SQLite. */
  postgres: { url: string; poolSize: number } | null;
  secretKey: string | undefined;
  bootstrap: { accountId: number; token: string } | null;
  rateLimitPerMinute: number;
  /** How old the cluster-wide /metrics gauges may be when another instance counted them (PostgreSQL). */
  metricsMaxAgeMs: number;
  ingestRateLimitPerMinute: number;
  failedSignInsPerMinute: number;
  /** When a commit reaches the disk: `full` survives power loss, `normal` only a process crash. */
  durability: 'full' | 'normal';
  /** Fastify's trustProxy: true (every proxy), or the proxies' addresses and CIDRs separated by commas. */
  trustProxy: boolean | string;
  maxWebhooksPerAccount: number;
  allowPrivateUrls: boolean;
  retryDelaysSeconds: readonly number[];
  delivery: { maxInFlight: number; maxInFlightPerWebhook: number; leaseSeconds: number };
  /** Response headers the delivery log masks besides the credential headers it always masks. */
  maskedResponseHeaders: readonly string[];
  /** Where users reach this service (JOBHOOKS_PUBLIC_URL): operational events link to webhooks' pages under it. */
  publicUrl: string | null;
  logLevel: string;
  /** Where spans are exported (the standard OTEL_* variables); null: not exported, `traceparent` still sent. */
  tracing: TracingSettings | null;
}

export function loadConfig(env: NodeJS.ProcessEnv): Config {
  // An empty variable means unset, as a shell user expects from `VAR= npm start`.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.') || 'environment'}: ${issue.message}`);
    throw new ConfigurationError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    host: e.HOST,
    port: e.PORT,
    databasePath: resolve(e.JOBHOOKS_DB),
    postgres:
      e.JOBHOOKS_DATABASE_URL === undefined
        ? null
        : { url: e.JOBHOOKS_DATABASE_URL, poolSize: e.JOBHOOKS_DATABASE_POOL_SIZE },
    secretKey: e.JOBHOOKS_SECRET_KEY,
    bootstrap:
      e.JOBHOOKS_BOOTSTRAP_ACCOUNT_ID !== undefined && e.JOBHOOKS_BOOTSTRAP_TOKEN !== undefined
        ? { accountId: e.JOBHOOKS_BOOTSTRAP_ACCOUNT_ID, token: e.JOBHOOKS_BOOTSTRAP_TOKEN }
        : null,
    rateLimitPerMinute: e.JOBHOOKS_RATE_LIMIT_PER_MINUTE,
    metricsMaxAgeMs: e.JOBHOOKS_METRICS_MAX_AGE_SECONDS * 1000,
    ingestRateLimitPerMinute: e.JOBHOOKS_INGEST_RATE_LIMIT_PER_MINUTE,
    failedSignInsPerMinute: e.JOBHOOKS_FAILED_SIGN_INS_PER_MINUTE,
    durability: e.JOBHOOKS_DURABILITY,
    trustProxy: e.JOBHOOKS_TRUST_PROXY ?? false,
    maxWebhooksPerAccount: e.JOBHOOKS_MAX_SUBSCRIPTIONS_PER_ACCOUNT,
    allowPrivateUrls: e.JOBHOOKS_ALLOW_PRIVATE_URLS,
    retryDelaysSeconds: e.JOBHOOKS_RETRY_SCHEDULE ?? DEFAULT_RETRY_DELAYS_SECONDS,
    delivery: {
      maxInFlight: e.JOBHOOKS_DELIVERY_CONCURRENCY,
      maxInFlightPerWebhook: e.JOBHOOKS_DELIVERY_CONCURRENCY_PER_ENDPOINT,
      leaseSeconds: e.JOBHOOKS_DELIVERY_LEASE_SECONDS,
    },
    maskedResponseHeaders: e.JOBHOOKS_MASKED_RESPONSE_HEADERS ?? [],
    publicUrl: e.JOBHOOKS_PUBLIC_URL ?? null,
    logLevel: e.LOG_LEVEL,
    tracing: tracingSettingsOf(e),
  };
}
