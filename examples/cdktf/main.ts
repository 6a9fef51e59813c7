// A CDKTF app declaring a few realistic webhooks through the public dbt-labs/dbtcloud provider's resource.
// `cdktf synth` writes cdktf.out/stacks/webhooks/cdk.tf.json; the connection comes from the DBT_CLOUD_* variables.
import { App, TerraformOutput, TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import { DbtcloudProvider, DbtcloudWebhook } from '@jobhooks/cdktf';

export class WebhooksStack extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new DbtcloudProvider(this, 'dbtcloud', {});
    // The URLs are placeholders: the webhooks are inactive, so no event goes to hosts that are not yours.
    // Point clientUrl at your endpoint and set active to true.

    const allRuns = new DbtcloudWebhook(this, 'all_completed_runs', {
      name: 'All completed runs',
      description: 'Feeds the run tracker',
      clientUrl: 'https://tracker.example.com/hooks/dbt',
      eventTypes: ['job.run.completed'],
      active: false,
    });
    const nightly = new DbtcloudWebhook(this, 'nightly_jobs', {
      name: 'Nightly jobs',
      clientUrl: 'https://dashboards.example.com/ingest/runs',
      eventTypes: ['job.run.started', 'job.run.completed'],
      jobIds: [101, 102],
      active: false,
    });
    const errored = new DbtcloudWebhook(this, 'errored_runs', {
      name: 'Errored runs to on-call',
      clientUrl: 'https://pager.example.com/v1/dbt',
      eventTypes: ['job.run.errored'],
      active: false,
    });

    for (const [name, hook] of Object.entries({
      all_completed_runs: allRuns,
      nightly_jobs: nightly,
      errored_runs: errored,
    })) {
      new TerraformOutput(this, `${name}_id`, { value: hook.webhookId });
      // Receivers need the secret to verify signatures; Terraform keeps it out of plan output.
      new TerraformOutput(this, `${name}_hmac_secret`, { value: hook.hmacSecret, sensitive: true });
    }
  }
}

if (require.main === module) {
  const app = new App();
  new WebhooksStack(app, 'webhooks');
  app.synth();
}
