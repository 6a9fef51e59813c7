// Closing the HTTP server within a bound: requests in flight finish, but a client that stops reading its response
// (a stalled proxy, a browser killed with a download half read) cannot hold a shutdown, and with it the deliveries
// in flight and the database, until an orchestrator's SIGKILL.
import type { FastifyInstance } from 'fastify';
import type { Millis } from '../core/time';

/** Stops taking requests, waits up to `graceMs` for those in flight, then cuts every connection still open. */
export async function closeWithin(app: FastifyInstance, graceMs: Millis): Promise<void> {
  const closed = app.close();
  const cutOff = setTimeout(() => app.server.closeAllConnections(), graceMs);
  try {
    await closed;
  } finally {
    clearTimeout(cutOff);
  }
}
