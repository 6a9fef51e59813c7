// Authenticates each API request, applies the per-account rate limit, then checks the route's access level.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type AccessLevel, authorize, type Principal } from '../accounts/access';
import type { AccountService } from '../accounts/account-service';
import type { Admission, RateLimiter } from '../accounts/rate-limit-policy';
import type { SignInThrottle } from '../accounts/sign-in-throttle';
import { RateLimitedError, SignInThrottledError, UnauthenticatedError } from '../core/errors';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The access a route needs; routes without it are public (health, OpenAPI). */
    access?: AccessLevel;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** The rate-limit admission of this request, refunded if the server fails it. */
    rateAdmission: Admission | null;
  }
}

/** The principal of a route that declared an access level; the hook has already authenticated it. */
export function principalOf(request: FastifyRequest): Principal {
  if (request.principal === null) throw new UnauthenticatedError('Authentication required.');
  return request.principal;
}

export interface AccessControlOptions {
  accounts: AccountService;
  rateLimiter: RateLimiter;
  signInThrottle: SignInThrottle;
}

async function accessControl(app: FastifyInstance, { accounts, rateLimiter, signInThrottle }: AccessControlOptions) {
  app.decorateRequest('principal', null);
  app.decorateRequest('rateAdmission', null);
  app.addHook('onRequest', async (request, reply) => {
    const level = request.routeOptions.config.access;
    if (level === undefined) return;
    // Failed sign-ins count against the client's address (request.ip trusts a proxy only when told to).
    const wait = signInThrottle.waitFor(request.ip);
    if (wait !== null) throw new SignInThrottledError(wait);
    let principal: Principal;
    try {
      principal = await accounts.authenticate(request.headers.authorization);
    } catch (error) {
      if (error instanceof UnauthenticatedError) await signInThrottle.failed(request.ip);
      throw error;
    }
    // Events from the scheduler spend a budget of their own: a flood of them cannot lock out the admins, nor
    // a busy dashboard the scheduler.
    const decision = await rateLimiter.admit(principal.account.id, level === 'ingest' ? 'ingestion' : 'management');
    if (!decision.allowed) throw new RateLimitedError(decision.retryAfterSeconds);
    request.rateAdmission = decision.admission;
    // Answers are per token and may hold a secret (the create response's hmac_secret): no cache keeps them.
    reply.headers({ 'x-ratelimit-remaining': String(decision.remaining), 'cache-control': 'no-store' });
    const params = request.params as { account_id?: string } | undefined;
    authorize(principal, params?.account_id, level);
    request.principal = principal;
  });
}

export const accessControlPlugin = fp(accessControl, { name: 'jobhooks-access-control' });
