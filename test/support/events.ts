// Job-run events for tests: a valid run of each event type, and posting one through the ingestion API.
import type { Harness } from './harness';
import { ACCOUNT_ID } from './harness';

export const eventsPath = (accountId = ACCOUNT_ID) => `/api/v3/accounts/${accountId}/webhooks/events`;

type EventType = 'job.run.started' | 'job.run.completed' | 'job.run.errored';

const STATUS: Record<EventType, { runStatus: string; runStatusCode: number }> = {
  'job.run.started': { runStatus: 'Running', runStatusCode: 3 },
  'job.run.completed': { runStatus: 'Success', runStatusCode: 10 },
  'job.run.errored': { runStatus: 'Errored', runStatusCode: 20 },
};

/** A run as the scheduler reports it, with both finishing timestamps so every event type can use it. */
export function runOf(eventType: EventType, overrides: Record<string, unknown> = {}) {
  return {
    jobId: '42',
    jobName: 'Nightly models',
    runId: '1001',
    environmentId: '5',
    environmentName: 'Production',
    dbtVersion: '1.9.0',
    projectName: 'Analytics',
    projectId: '3',
    ...STATUS[eventType],
    runStatusMessage: 'None',
    runReason: 'Kicked off by ana@example.com',
    runStartedAt: '2026-11-21T09:00:00Z',
    runFinishedAt: '2026-11-21T09:05:00Z',
    runErroredAt: '2026-11-21T09:04:00Z',
    ...overrides,
  };
}

export async function postEvent(h: Harness, eventType: EventType, run: Record<string, unknown> = {}, token?: string) {
  return h.call('POST', eventsPath(), {
    body: { event_type: eventType, run: runOf(eventType, run) },
    ...(token ? { token } : {}),
  });
}

/** Posts an event and fails the test unless it was accepted. */
export async function ingest(h: Harness, eventType: EventType, run: Record<string, unknown> = {}) {
  const response = await postEvent(h, eventType, run);
  if (response.statusCode !== 202) throw new Error(`ingestion failed: ${response.statusCode} ${response.body}`);
  return response.json().data as { event_id: string; deliveries: number; skipped: number; duplicate: boolean };
}
