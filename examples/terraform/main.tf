# A few realistic webhooks, declared with the public dbt-labs/dbtcloud provider's resource. The same file
# works against dbt Cloud with the public provider and against jobhooks with the provider that the install command
# of @jobhooks/terraform-provider, pinned to a version (docs/install.md), sets up in this folder. The connection
# comes from the environment:
#   DBT_CLOUD_HOST_URL=http://127.0.0.1:8080/api DBT_CLOUD_ACCOUNT_ID=1 DBT_CLOUD_TOKEN=jhk_...
terraform {
  required_providers {
    dbtcloud = {
      source  = "dbt-labs/dbtcloud"
      version = "~> 1.12"
    }
  }
}

provider "dbtcloud" {}

# The URLs are placeholders: the webhooks are inactive, so no event goes to hosts that are not yours.
# Point client_url at your endpoint and set active = true.

# Every completed run of every job.
resource "dbtcloud_webhook" "all_completed_runs" {
  name        = "All completed runs"
  description = "Feeds the run tracker"
  client_url  = "https://tracker.example.com/hooks/dbt"
  event_types = ["job.run.completed"]
  active      = false
}

# Start and end of two nightly jobs only.
resource "dbtcloud_webhook" "nightly_jobs" {
  name        = "Nightly jobs"
  client_url  = "https://dashboards.example.com/ingest/runs"
  event_types = ["job.run.started", "job.run.completed"]
  job_ids     = [101, 102]
  active      = false
}

# Errors only, to the on-call pager.
resource "dbtcloud_webhook" "errored_runs" {
  name        = "Errored runs to on-call"
  client_url  = "https://pager.example.com/v1/dbt"
  event_types = ["job.run.errored"]
  active      = false
}

output "webhook_ids" {
  value = {
    all_completed_runs = dbtcloud_webhook.all_completed_runs.id
    nightly_jobs       = dbtcloud_webhook.nightly_jobs.id
    errored_runs       = dbtcloud_webhook.errored_runs.id
  }
}

# Receivers need these to verify signatures. Read one with: terraform output -json hmac_secrets
output "hmac_secrets" {
  sensitive = true
  value = {
    all_completed_runs = dbtcloud_webhook.all_completed_runs.hmac_secret
    nightly_jobs       = dbtcloud_webhook.nightly_jobs.hmac_secret
    errored_runs       = dbtcloud_webhook.errored_runs.hmac_secret
  }
}
