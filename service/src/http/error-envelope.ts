// Maps every error to the error envelope (docs/api-contract.md#8-errors), by stable code, and keeps server errors
// generic.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { type ErrorEnvelope, type FieldErrors, fieldSentence } from '@jobhooks/client/contract';
import { describeFieldErrors, JobhooksError } from '../core/errors';
import { STORAGE_RETRY_AFTER_SECONDS, type StorageHealth } from '../observability/storage-failures';

export interface EnvelopeSpec {
  status: number;
  code: string;
  message: string;
  fieldErrors?: FieldErrors;
  headers?: Readonly<Record<string, string>>;
}

/** Fastify's own client errors, by code. Anything else with a 4xx status keeps its status and message. */
const FASTIFY_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: {
    status: 413,
    code: 'payload_too_large',
    message: 'The request body is larger than 64 KiB.',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    code: 'unsupported_media_type',
    message: 'Send the request body as JSON with Content-Type: application/json.',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: {
    status: 400,
    code: 'malformed_request',
    message: 'The request body is not valid JSON.',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    status: 400,
    code: 'malformed_request',
    message: 'The Content-Length does not match the body.',
  },
};

/** The envelope's body for an error. */
export function envelopeOf(spec: EnvelopeSpec): ErrorEnvelope {
  return {
    data: null,
    status: { code: spec.status, is_success: false, user_message: spec.message, developer_message: spec.code },
    ...(spec.fieldErrors ? { extra: { field_errors: spec.fieldErrors } } : {}),
  };
}

export function sendError(reply: FastifyReply, spec: EnvelopeSpec): FastifyReply {
  const body = envelopeOf(spec);
  if (spec.headers) reply.headers(spec.headers);
  // API answers are never cached (the access-control hook sets it for the answers that get that far).
  if (reply.request.url.startsWith('/api/')) reply.header('cache-control', 'no-store');
  return reply.code(spec.status).type('application/json; charset=utf-8').send(body);
}

function fieldErrorsOf(error: FastifyError): FieldErrors {
  const fieldErrors: FieldErrors = {};
  for (const issue of error.validation ?? []) {
    const path = issue.instancePath.replace(/^\//, '').split('/').filter(Boolean);
    // A list entry's problem belongs to the list: "job_ids", not "job_ids.2".
    const field = path.filter((part) => !/^\d+$/.test(part)).join('.') || (error.validationContext ?? 'body');
    const messages = (fieldErrors[field] ??= []);
    const inQuery = error.validationContext === 'querystring';
    const message = fieldSentence(field, issue.message ?? 'is invalid', inQuery);
    if (!messages.includes(message)) messages.push(message);
  }
  return fieldErrors;
}

function envelopeFor(error: FastifyError | JobhooksError): EnvelopeSpec | null {
  if (error instanceof JobhooksError) {
    return {
      status: error.httpStatus,
      code: error.code,
      message: error.message,
      headers: error.headers,
      ...('fieldErrors' in error ? { fieldErrors: error.fieldErrors as FieldErrors } : {}),
    };
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const fieldErrors = fieldErrorsOf(error);
    return { status: 400, code: 'validation_failed', message: describeFieldErrors(fieldErrors), fieldErrors };
  }
  const known = FASTIFY_ERRORS[error.code];
  if (known) return known;
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return { status: error.statusCode, code: 'bad_request', message: error.message };
  }
  return null;
}

/**
 * Errors Fastify raises before routing: a path with broken percent-encoding, or a segment longer than any id
 * (the router's maxParamLength). Such a path cannot name a webhook, and an unknown or malformed webhook id is a
 * 404, never a 400 or a 414 (docs/decisions.md#4-error-statuses).
 */
export function frameworkErrorHandler(error: FastifyError, _request: unknown, reply: FastifyReply): void {
  const spec =
    error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? { status: 404, code: 'not_found', message: 'The URL path is not valid, so it names no resource.' }
      : (envelopeFor(error) ?? { status: 400, code: 'bad_request', message: 'The request could not be read.' });
  sendError(reply, spec);
}

export interface ErrorEnvelopeOptions {
  storageHealth: StorageHealth;
  /** Called for every answer the server failed (5xx): such a request is not the caller's to count. */
  onServerError(request: FastifyRequest): void;
}

export function registerErrorEnvelope(
  app: FastifyInstance,
  { storageHealth, onServerError }: ErrorEnvelopeOptions,
): void {
  app.setErrorHandler((error: FastifyError | JobhooksError, request, reply) => {
    const spec = envelopeFor(error);
    if (spec) return sendError(reply, spec);
    onServerError(request);
    // The database cannot do its part (full disk, read-only or corrupt file): nothing was changed, and the
    // same request may work later. One log line per interval, not one per request.
    const reason = storageHealth.noteError(error, (line) => request.log.error(line));
    if (reason !== null) {
      return sendError(reply, {
        status: 503,
        code: 'storage_unavailable',
        message: `The service cannot read or store data right now (${reason}); try again later.`,
        headers: { 'retry-after': String(STORAGE_RETRY_AFTER_SECONDS) },
      });
    }
    request.log.error({ err: error }, 'request failed');
    return sendError(reply, { status: 500, code: 'internal_error', message: 'Internal server error.' });
  });
  // Its own code: a client told "no such route" must not take it for "no such webhook" (a host URL whose prefix a
  // proxy passes through unchanged reaches the service on paths it does not serve).
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, {
      status: 404,
      code: 'route_not_found',
      message: notFoundMessage(request.method, request.url.split('?')[0] ?? ''),
    }),
  );
}

/**
 * An API path without the /api prefix is the usual sign of a client whose host_url lacks it (the dbt Cloud
 * clients append /v2/... and /v3/... to it): say where the API is.
 */
export function notFoundMessage(method: string, path: string): string {
  if (/^\/v[23]\//.test(path)) {
    return `No route ${method} ${path}. The API is under /api: use ${'/api' + path}, and a host_url that ends in /api (e.g. http://127.0.0.1:8080/api).`;
  }
  return `No route ${method} ${path}.`;
}
