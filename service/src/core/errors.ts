// The one error hierarchy of the service: each class has a stable code, an HTTP status and a message a user can act on.
import type { FieldErrors } from '@jobhooks/client/contract';

export abstract class JobhooksError extends Error {
  abstract readonly code: string;
  abstract readonly httpStatus: number;
  /** Extra response headers (Retry-After on 429). */
  readonly headers: Readonly<Record<string, string>> = {};
}

export class ValidationError extends JobhooksError {
  readonly code = 'validation_failed';
  readonly httpStatus = 400;
  constructor(
    readonly fieldErrors: FieldErrors,
    message = describeFieldErrors(fieldErrors),
  ) {
    super(message);
  }
}

/** A body that cannot be read at all (not UTF-8, not JSON): no field to name. */
export class MalformedRequestError extends JobhooksError {
  readonly code = 'malformed_request';
  readonly httpStatus = 400;
}

/** A body the API cannot take in the form it was sent (compressed, say). */
export class UnsupportedMediaTypeError extends JobhooksError {
  readonly code = 'unsupported_media_type';
  readonly httpStatus = 415;
}

export class UnauthenticatedError extends JobhooksError {
  readonly code = 'unauthenticated';
  readonly httpStatus = 401;
}

export class ForbiddenError extends JobhooksError {
  readonly code = 'forbidden';
  readonly httpStatus = 403;
}

export class NotFoundError extends JobhooksError {
  readonly code = 'not_found';
  readonly httpStatus = 404;
}

export class ConflictError extends JobhooksError {
  readonly code = 'conflict';
  readonly httpStatus = 409;
}

/** A 429: the caller is told how long to wait, in words and in Retry-After. */
abstract class TooManyRequestsError extends JobhooksError {
  readonly httpStatus = 429;
  override readonly headers: Readonly<Record<string, string>>;
  constructor(
    what: string,
    readonly retryAfterSeconds: number,
  ) {
    super(`${what}: wait ${retryAfterSeconds} seconds before retrying.`);
    this.headers = { 'retry-after': String(retryAfterSeconds) };
  }
}

export class RateLimitedError extends TooManyRequestsError {
  readonly code = 'rate_limited';
  constructor(retryAfterSeconds: number) {
    super('Too many requests for this account', retryAfterSeconds);
  }
}

export class SignInThrottledError extends TooManyRequestsError {
  readonly code = 'sign_in_throttled';
  constructor(retryAfterSeconds: number) {
    super('Too many failed sign-ins from this address', retryAfterSeconds);
  }
}

/** Configuration or startup problems: reported to the operator, never to an API caller. */
export class ConfigurationError extends Error {
  readonly code = 'configuration_invalid';
}

/** One sentence per field; a field whose every message names it already is not named again in front of them. */
export function describeFieldErrors(fieldErrors: FieldErrors): string {
  const parts = Object.entries(fieldErrors).map(([field, messages]) =>
    messages.every((message) => message.startsWith(`${field} `))
      ? messages.join('; ')
      : `${field}: ${messages.join('; ')}`,
  );
  return `Invalid request: ${parts.join('. ')}`;
}
