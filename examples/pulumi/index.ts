// A Pulumi program declaring a few realistic webhooks in a jobhooks service. Connection from stack config:
//   pulumi config set jobhooks:baseUrl http://127.0.0.1:8080/api
//   pulumi config set jobhooks:accountId 1
//   pulumi config set --secret jobhooks:token jhk_...
// (or DBT_CLOUD_HOST_URL, DBT_CLOUD_ACCOUNT_ID, DBT_CLOUD_TOKEN).
import * as pulumi from '@pulumi/pulumi';
import { Webhook } from '@jobhooks/pulumi';

// The URLs below are placeholders: the webhooks are made inactive, so no event is sent to hosts that are not
// yours. Point clientUrl at your endpoint and drop `active: false` (or set it to true).

// Every completed run of every job, to the data platform's run tracker.
export const allRuns = new Webhook('all-completed-runs', {
  name: 'All completed runs',
  description: 'Feeds the run tracker',
  clientUrl: 'https://tracker.example.com/hooks/dbt',
  eventTypes: ['job.run.completed'],
  active: false,
});

// Start and end of the two nightly jobs only, for the warehouse team's dashboard.
export const nightly = new Webhook('nightly-jobs', {
  clientUrl: 'https://dashboards.example.com/ingest/runs',
  eventTypes: ['job.run.started', 'job.run.completed'],
  jobIds: [101, 102],
  active: false,
});

// Errors as soon as they happen, to the on-call pager.
export const errored = new Webhook('errored-runs', {
  name: 'Errored runs to on-call',
  clientUrl: 'https://pager.example.com/v1/dbt',
  eventTypes: ['job.run.errored'],
  active: false,
});

export const webhookIds = { allRuns: allRuns.webhookId, nightly: nightly.webhookId, errored: errored.webhookId };
// Receivers need these to verify signatures; they stay encrypted in the state and the stack outputs.
export const hmacSecrets = pulumi.secret({
  allRuns: allRuns.hmacSecret,
  nightly: nightly.hmacSecret,
  errored: errored.hmacSecret,
});
