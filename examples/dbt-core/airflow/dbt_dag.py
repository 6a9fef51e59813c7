"""A nightly dbt build whose runs reach jobhooks as dbt Cloud job runs, two ways.

- `dbt_build` runs dbt inside `jobhooks-dbt run`: started, errored and completed are posted as the run goes
  (Airflow sets AIRFLOW_CTX_* for the command, which make the run id).
- `dbt_test` runs plain `dbt test`, and its callbacks report the run once it has ended (jobhooks_callbacks.py).
"""

from datetime import datetime

from airflow import DAG
from airflow.operators.bash import BashOperator

from jobhooks_callbacks import DBT_PROJECT_DIR, report_dbt_run

with DAG(
    dag_id="dbt_nightly",
    schedule="0 5 * * *",
    start_date=datetime(2026, 1, 1),
    catchup=False,
) as dag:
    dbt_build = BashOperator(
        task_id="dbt_build",
        bash_command="npx jobhooks-dbt run --job-id 42 -- dbt build --target prod",
        cwd=DBT_PROJECT_DIR,
    )
    dbt_test = BashOperator(
        task_id="dbt_test",
        bash_command="dbt test --target prod",
        cwd=DBT_PROJECT_DIR,
        on_success_callback=report_dbt_run,
        on_failure_callback=report_dbt_run,
    )
    dbt_build >> dbt_test
