"""Airflow callbacks that report a dbt task's run to jobhooks as a dbt Cloud job run.

`report_dbt_run` posts job.run.errored (when the run failed) and job.run.completed from the run_results.json dbt
wrote, with `jobhooks-dbt emit`. The run id comes from the task instance (DAG, DAG run, task, try), so a callback
that runs twice for the same try reports the same run, not a new one. Connection and job come from the
environment of the worker: JOBHOOKS_HOST_URL, JOBHOOKS_ACCOUNT_ID, JOBHOOKS_TOKEN, JOBHOOKS_DBT_JOB_ID.
"""

import os
import shlex
import subprocess

# Where the dbt project is on the workers, and the command that runs jobhooks-dbt there.
DBT_PROJECT_DIR = os.environ.get("DBT_PROJECT_DIR", "/opt/airflow/dbt/jaffle_shop")
JOBHOOKS_DBT = shlex.split(os.environ.get("JOBHOOKS_DBT", "npx jobhooks-dbt"))


def report_dbt_run(context):
    """on_success_callback and on_failure_callback of a task that ran `dbt build`."""
    ti = context["ti"]
    env = {
        **os.environ,
        "AIRFLOW_CTX_DAG_ID": ti.dag_id,
        "AIRFLOW_CTX_DAG_RUN_ID": context["run_id"],
        "AIRFLOW_CTX_TASK_ID": ti.task_id,
        "AIRFLOW_CTX_TRY_NUMBER": str(ti.try_number),
    }
    run_results = os.path.join(DBT_PROJECT_DIR, "target", "run_results.json")
    # A run_results.json written before the task started is an earlier run's (dbt stopped before it wrote one):
    # --not-before reports the run as errored with that sentence instead of reporting the earlier run.
    not_before = ["--not-before", ti.start_date.isoformat()] if ti.start_date else []
    # A report that cannot be posted is logged by jobhooks-dbt; it must not fail the task's callback.
    subprocess.run([*JOBHOOKS_DBT, "emit", "--run-results", run_results, *not_before], env=env, check=False)
