#!/usr/bin/env bash
# dbt Core from cron or a shell, reported as a dbt Cloud job run: the arguments go to dbt, and the script exits with
# dbt's exit code. Set JOBHOOKS_HOST_URL, JOBHOOKS_ACCOUNT_ID, JOBHOOKS_TOKEN and JOBHOOKS_DBT_JOB_ID first.
set -euo pipefail
cd "$(dirname "$0")"
exec npx jobhooks-dbt run -- dbt build "$@"
