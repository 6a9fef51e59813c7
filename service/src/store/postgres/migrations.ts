// The PostgreSQL schema, as an append-only list of migrations (its own numbering; version 1 is what the SQLite
// migrations 1 to 12 make). Same tables, columns and meanings as the SQLite store, so both share their row
// mappers' rules: times are bigint microseconds since the epoch, ids the service's own text ids, and
// event_types and job_ids JSON text kept exactly as written.
import type { Migration } from '../rows';

/** Channels of NOTIFY between instances (postgres/notifications.ts listens to each). */
export const CHANNELS = {
  /** Kept token principals may have changed: 'a:*' (accounts), 't:*' (tokens). Before version 3, also 'w:...'. */
  invalidate: 'jobhooks_invalidate',
  /** Deliveries were queued or made due: other instances' dispatchers look for work. */
  due: 'jobhooks_due',
  /** A client address was blocked for failed sign-ins: '<blocked until, ms> <client key>' (version 4). */
  signInBlocked: 'jobhooks_sign_in_blocked',
} as const;

export const PG_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'the whole schema of the SQLite store at its version 12, with per-claim leases',
    sql: `
      CREATE TABLE accounts (
        id          bigint PRIMARY KEY,
        identifier  text   NOT NULL UNIQUE,
        name        text   NOT NULL,
        plan        text   NOT NULL,
        created_at  bigint NOT NULL
      );

      CREATE TABLE api_tokens (
        id              text   PRIMARY KEY,
        account_id      bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name            text   NOT NULL,
        permission_set  text   NOT NULL,
        token_hash      text   NOT NULL UNIQUE,
        created_at      bigint NOT NULL,
        revoked_at      bigint
      );
      CREATE INDEX api_tokens_by_account ON api_tokens(account_id, created_at);

      CREATE TABLE webhooks (
        id                      text    PRIMARY KEY,
        account_id              bigint  NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name                    text    NOT NULL,
        description             text    NOT NULL,
        client_url              text    NOT NULL,
        event_types             text    NOT NULL,
        job_ids                 text    NOT NULL,
        active                  boolean NOT NULL,
        sealed_secret           text    NOT NULL,
        previous_sealed_secret  text,
        previous_secret_until   bigint,
        created_at              bigint  NOT NULL,
        updated_at              bigint  NOT NULL,
        dispatched_at           bigint,
        http_status_code        text    NOT NULL DEFAULT '0',
        consecutive_failures    integer NOT NULL DEFAULT 0,
        failing_since           bigint,
        last_failure_at         bigint,
        archived_at             bigint,
        archived_reason         text
      );
      CREATE INDEX webhooks_by_account ON webhooks(account_id, created_at, id);

      CREATE TABLE idempotency_keys (
        account_id    bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        key           text   NOT NULL,
        request_hash  text   NOT NULL,
        webhook_id    text   NOT NULL,
        created_at    bigint NOT NULL,
        PRIMARY KEY (account_id, key)
      );
      CREATE INDEX idempotency_keys_by_age ON idempotency_keys(created_at);

      CREATE TABLE events (
        id            text   PRIMARY KEY,
        account_id    bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        event_type    text   NOT NULL,
        run_id        text   NOT NULL,
        job_id        text   NOT NULL,
        created_at    bigint NOT NULL,
        payload_tail  bytea,
        UNIQUE (account_id, run_id, event_type)
      );
      CREATE INDEX events_by_age ON events(created_at);

      -- The queue, the delivery log's parent and each webhook's backlog in one table. Every lease and result
      -- rewrites a row, so it is vacuumed early and leaves room on each page for the new versions.
      CREATE TABLE deliveries (
        id                text    PRIMARY KEY,
        event_id          text    NOT NULL REFERENCES events(id) ON DELETE CASCADE,
        webhook_id        text    NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        state             text    NOT NULL CHECK (state IN ('pending', 'succeeded', 'failed', 'skipped')),
        payload           bytea   NOT NULL,
        attempts          integer NOT NULL DEFAULT 0,
        next_attempt_at   bigint,
        -- The lease of the claim that holds the row (a new one per claim), not merely its process.
        lease_owner       text,
        lease_expires_at  bigint,
        signature         text,
        last_attempt      integer NOT NULL DEFAULT 0,
        created_at        bigint  NOT NULL,
        updated_at        bigint  NOT NULL
      ) WITH (fillfactor = 90, autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_insert_scale_factor = 0.01,
              autovacuum_analyze_scale_factor = 0.02);
      CREATE INDEX deliveries_pending_by_webhook ON deliveries(webhook_id, next_attempt_at) WHERE state = 'pending';
      -- "Is anything due, and when next?" and the due gauge, without a look at every webhook.
      CREATE INDEX deliveries_due ON deliveries(next_attempt_at) WHERE state = 'pending';
      CREATE INDEX deliveries_by_webhook ON deliveries(webhook_id, created_at);
      CREATE INDEX deliveries_by_event ON deliveries(event_id);
      CREATE INDEX deliveries_finished_by_age ON deliveries(updated_at) WHERE state <> 'pending';
      CREATE INDEX deliveries_failed_by_webhook ON deliveries(webhook_id, created_at) WHERE state = 'failed';

      CREATE TABLE delivery_attempts (
        id                bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        delivery_id       text    REFERENCES deliveries(id) ON DELETE CASCADE,
        webhook_id        text    NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        event_id          text    NOT NULL,
        event_type        text    NOT NULL,
        attempt           integer NOT NULL,
        requested_at      bigint  NOT NULL,
        duration_ms       integer NOT NULL,
        status_code       text    NOT NULL,
        error             text,
        success           boolean NOT NULL,
        response_excerpt  text,
        response_headers  text,
        is_test           boolean NOT NULL DEFAULT false
      ) WITH (autovacuum_vacuum_insert_scale_factor = 0.02);
      CREATE INDEX delivery_attempts_by_webhook ON delivery_attempts(webhook_id, requested_at);
      CREATE INDEX delivery_attempts_by_age ON delivery_attempts(requested_at);
      CREATE INDEX delivery_attempts_by_delivery ON delivery_attempts(delivery_id);

      CREATE TABLE readiness_probe (
        id          integer PRIMARY KEY CHECK (id = 1),
        checked_at  bigint  NOT NULL
      );

      CREATE TABLE secret_key_check (
        id      integer PRIMARY KEY CHECK (id = 1),
        sealed  text    NOT NULL
      );

      -- Each account's rate window per budget, shared by every instance (accounts/rate-limiter.ts).
      CREATE TABLE rate_limit_windows (
        account_id        bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        budget            text   NOT NULL,
        window_start_ms   bigint NOT NULL,
        count             integer NOT NULL,
        blocked_until_ms  bigint,
        PRIMARY KEY (account_id, budget)
      );

      -- Other instances keep webhooks and tokens in memory: a statement that changes them tells them, once per
      -- statement (not per row), after its transaction commits.
      CREATE FUNCTION jobhooks_notify_webhooks() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE ids text;
      BEGIN
        SELECT string_agg(DISTINCT id, ',') INTO ids FROM changed_rows;
        IF ids IS NOT NULL THEN
          PERFORM pg_notify('${CHANNELS.invalidate}', CASE WHEN length(ids) > 7900 THEN 'w:*' ELSE 'w:' || ids END);
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER webhooks_notify_update AFTER UPDATE ON webhooks
        REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION jobhooks_notify_webhooks();
      CREATE TRIGGER webhooks_notify_delete AFTER DELETE ON webhooks
        REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION jobhooks_notify_webhooks();

      CREATE FUNCTION jobhooks_notify_all(what text) RETURNS void LANGUAGE sql AS $$
        SELECT pg_notify('${CHANNELS.invalidate}', what || ':*')
      $$;
      CREATE FUNCTION jobhooks_notify_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM jobhooks_notify_all('a'); RETURN NULL; END $$;
      CREATE FUNCTION jobhooks_notify_tokens() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM jobhooks_notify_all('t'); RETURN NULL; END $$;
      CREATE TRIGGER accounts_notify AFTER UPDATE OR DELETE ON accounts
        FOR EACH STATEMENT EXECUTE FUNCTION jobhooks_notify_accounts();
      CREATE TRIGGER api_tokens_notify AFTER UPDATE OR DELETE ON api_tokens
        FOR EACH STATEMENT EXECUTE FUNCTION jobhooks_notify_tokens();
    `,
  },
  {
    version: 2,
    description: 'what a cluster-wide job last computed, and when, for the instances that did not run it',
    sql: `
      CREATE TABLE cluster_results (
        name         text    PRIMARY KEY,
        -- The computing instance's clock, in milliseconds since the epoch.
        computed_at  bigint  NOT NULL,
        result       jsonb   NOT NULL
      );
    `,
  },
  {
    version: 3,
    description: "each webhook's deliveries in flight, for claims; webhooks no longer kept in memory",
    sql: `
      -- A claim counts other instances' requests to a webhook. Small: only the deliveries leased right now (a
      -- result or skip clears lease_owner).
      CREATE INDEX deliveries_leased_by_webhook ON deliveries(webhook_id, lease_expires_at)
        WHERE state = 'pending' AND lease_owner IS NOT NULL;
      -- Webhooks are read from the database every time (store/postgres/webhooks.ts): nobody needs to hear of
      -- their changes, which every batch of delivery results makes.
      DROP TRIGGER webhooks_notify_update ON webhooks;
      DROP TRIGGER webhooks_notify_delete ON webhooks;
      DROP FUNCTION jobhooks_notify_webhooks();
    `,
  },
  {
    version: 4,
    description: "each client address's failed sign-ins, counted by every instance",
    sql: `
      -- The window of failed sign-ins of one client address (accounts/sign-in-throttle.ts); rows whose
      -- window and block have ended are deleted as failures come in.
      CREATE TABLE sign_in_windows (
        client_key        text    PRIMARY KEY,
        window_start_ms   bigint  NOT NULL,
        count             integer NOT NULL,
        blocked_until_ms  bigint
      );
    `,
  },
  {
    version: 5,
    description: "each webhook's endpoint health, learnt by every instance",
    sql: `
      -- What the endpoint's answers taught (delivery/endpoint-health.ts): requests it may have in flight, and
      -- its circuit breaker. circuit_since is NULL while the circuit is closed; an open circuit is due for its
      -- probe at circuit_until. A new client_url, or a reactivation, sets them back to these defaults.
      ALTER TABLE webhooks
        ADD COLUMN endpoint_heard          boolean NOT NULL DEFAULT false,
        ADD COLUMN endpoint_limit          integer NOT NULL DEFAULT 1,
        ADD COLUMN endpoint_sick_in_a_row  integer NOT NULL DEFAULT 0,
        ADD COLUMN circuit_opens           integer NOT NULL DEFAULT 0,
        ADD COLUMN circuit_since           bigint,
        ADD COLUMN circuit_until           bigint;
    `,
  },
  {
    version: 6,
    description: 'columns that were written and never read are dropped',
    sql: `
      -- Columns nothing read: a delivery's signature (every attempt signs anew, over its own timestamp), the lease's
      -- end (while leased, next_attempt_at holds it: an expired lease is simply due again), and an event's job id
      -- (the fan-out reads it from the event as it is taken in, never from the row).
      ALTER TABLE deliveries DROP COLUMN signature, DROP COLUMN lease_expires_at;
      ALTER TABLE events DROP COLUMN job_id;
    `,
  },
  {
    version: 7,
    description: "credential headers of receivers' answers are masked in rows logged before masking",
    sql: `
      -- Rows logged before the delivery log masked credential headers hold their values: masked now, as every new
      -- row is (delivery/answer-excerpt.ts, ALWAYS_MASKED_HEADERS; a migration keeps the list it was written with).
      -- The text is the JSON the service wrote (JSON.stringify): each value a JSON string after its quoted name.
      UPDATE delivery_attempts
         SET response_headers = regexp_replace(response_headers,
               '"(set-cookie|cookie|authorization|proxy-authorization)":"(?:[^"\\\\]|\\\\.)*"', '"\\1":"(masked)"', 'g')
       WHERE response_headers ~ '"(set-cookie|cookie|authorization|proxy-authorization)":';
    `,
  },
  {
    version: 8,
    description: 'the hourly rollup of the delivery log that the statistics endpoints read',
    sql: `
      -- Per webhook and hour (its start, in microseconds): attempts and finished deliveries by outcome, and attempts
      -- by duration (ms_le_N: at most N ms, above the bucket before; ms_le_10000 holds every duration above 5 s), as
      -- domain/delivery-stats.ts reads them. Written with each batch of results, purged with the log.
      CREATE TABLE delivery_stats (
        webhook_id           text    NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        account_id           bigint NOT NULL,
        hour                 bigint NOT NULL,
        attempts_succeeded   integer NOT NULL DEFAULT 0,
        attempts_failed      integer NOT NULL DEFAULT 0,
        deliveries_succeeded integer NOT NULL DEFAULT 0,
        deliveries_failed    integer NOT NULL DEFAULT 0,
        ms_le_5              integer NOT NULL DEFAULT 0,
        ms_le_10             integer NOT NULL DEFAULT 0,
        ms_le_25             integer NOT NULL DEFAULT 0,
        ms_le_50             integer NOT NULL DEFAULT 0,
        ms_le_100            integer NOT NULL DEFAULT 0,
        ms_le_250            integer NOT NULL DEFAULT 0,
        ms_le_500            integer NOT NULL DEFAULT 0,
        ms_le_1000           integer NOT NULL DEFAULT 0,
        ms_le_2500           integer NOT NULL DEFAULT 0,
        ms_le_5000           integer NOT NULL DEFAULT 0,
        ms_le_10000          integer NOT NULL DEFAULT 0,
        PRIMARY KEY (webhook_id, hour)
      );
      CREATE INDEX delivery_stats_by_account ON delivery_stats(account_id, hour);
      CREATE INDEX delivery_stats_by_age ON delivery_stats(hour);
      -- The log already kept (at most 7 days) is rolled up once, so charts start full. A delivery counts as finished
      -- in the hour of its last logged attempt.
      INSERT INTO delivery_stats (webhook_id, account_id, hour, attempts_succeeded, attempts_failed, deliveries_succeeded,
                                  deliveries_failed, ms_le_5, ms_le_10, ms_le_25, ms_le_50, ms_le_100, ms_le_250, ms_le_500, ms_le_1000, ms_le_2500, ms_le_5000, ms_le_10000)
      SELECT a.webhook_id, w.account_id, (a.requested_at / 3600000000) * 3600000000 AS hour,
             sum(CASE WHEN a.success THEN 1 ELSE 0 END),
             sum(CASE WHEN NOT a.success THEN 1 ELSE 0 END),
             sum(CASE WHEN d.state = 'succeeded' AND a.attempt = d.attempts THEN 1 ELSE 0 END),
             sum(CASE WHEN d.state = 'failed' AND a.attempt = d.attempts THEN 1 ELSE 0 END),
             sum(CASE WHEN a.duration_ms <= 5 THEN 1 ELSE 0 END),
             sum(CASE WHEN a.duration_ms > 5 AND a.duration_ms <= 10 THEN 1 ELSE 0 END),
             sum(CASE WHEN a.duration_ms > 10 AND a.duration_ms <= 25 THEN 1 ELSE 0 END),
             sum(CASE WHEN a.duration_ms > 25 AND a.duration_ms <= 50 THEN 1 ELSE 0 END),
             sum(CASE WHEN a.duration_ms > 50 AND a.duration_ms <= 100 THEN 1 ELSE 0 END),
             sum(CASE WHEN a.duration_ms > 100 AND a.duration_ms <= 250 THEN 1 ELSE 0 END),
             sum(CASE WHEN a.duration_ms > 250 AND a.duration_ms <= 500 THEN 1 ELSE 0 END),
             sum(CASE WHEN a.duration_ms > 500 AND a.duration_ms <= 1000 THEN 1 ELSE 0 END),
             sum(CASE WHEN a.duration_ms > 1000 AND a.duration_ms <= 2500 THEN 1 ELSE 0 END),
             sum(CASE WHEN a.duration_ms > 2500 AND a.duration_ms <= 5000 THEN 1 ELSE 0 END),
             sum(CASE WHEN a.duration_ms > 5000 THEN 1 ELSE 0 END)
        FROM delivery_attempts a
        JOIN webhooks w ON w.id = a.webhook_id
        LEFT JOIN deliveries d ON d.id = a.delivery_id
       WHERE NOT a.is_test
       GROUP BY a.webhook_id, w.account_id, (a.requested_at / 3600000000) * 3600000000;
    `,
  },
  {
    version: 9,
    description: 'writes every delivery paid for and nothing needed: an index and two foreign keys',
    sql: `
      -- Only the due gauge read deliveries_due; deliveries_pending_by_webhook answers it as well. Each delivery wrote
      -- it twice (taken in, leased).
      DROP INDEX deliveries_due;
      -- Each delivery and each logged attempt checked its parent row, and locked it, as it was written. A delivery
      -- is written in the transaction that writes its event, and an event goes only once no delivery names it
      -- (delivery-log.ts); an attempt is logged only while its delivery exists, and purged no later than it, in the
      -- same pass. Both still go with their webhook or account, through their webhook_id.
      ALTER TABLE deliveries DROP CONSTRAINT deliveries_event_id_fkey;
      ALTER TABLE delivery_attempts DROP CONSTRAINT delivery_attempts_delivery_id_fkey;
    `,
  },
  {
    version: 10,
    description: "operational endpoints are webhooks of their own kind, which jobhooks' own API alone shows",
    sql: `
      -- 'job': a webhook of the dbt-compatible API; 'operational': an account's operational endpoint
      -- (docs/operational-webhooks.md), delivered to by the same pipeline, never listed by the dbt-compatible API.
      ALTER TABLE webhooks ADD COLUMN kind TEXT NOT NULL DEFAULT 'job' CHECK (kind IN ('job', 'operational'));
    `,
  },
  {
    version: 11,
    description: "an event keeps its trace context, so every attempt, on any instance, continues the event's trace",
    sql: `
      -- The W3C traceparent of the event's ingestion span (each attempt is a child of it) and the caller's tracestate;
      -- NULL in events taken in before (their attempts each start a trace of their own).
      ALTER TABLE events ADD COLUMN traceparent text, ADD COLUMN tracestate text;
    `,
  },
  {
    version: 12,
    description: "a webhook's own delivery rate, and when its next request may start",
    sql: `
      -- max_requests_per_second: NULL for no limit. rate_next_at (microseconds): the earliest start of the webhook's
      -- next request on any instance, moved on by each request's start slot (domain/send-rate.ts).
      ALTER TABLE webhooks ADD COLUMN max_requests_per_second integer, ADD COLUMN rate_next_at bigint;
    `,
  },
  {
    version: 13,
    description: "an account's webhooks of one kind are counted from an index, not by reading every row",
    sql: `
      -- Each create counts the account's webhooks of its kind (the per-account limit); webhooks_by_account has no
      -- kind, so the count read every webhook row of the account.
      CREATE INDEX webhooks_by_account_kind ON webhooks(account_id, kind);
    `,
  },
  {
    version: 14,
    description: 'a finished delivery holds no lease',
    sql: `
      -- A result or a skip finds its delivery by the lease it holds, with no look at its state (store/postgres/
      -- deliveries.ts): every way out of pending clears the lease, and this keeps it so.
      ALTER TABLE deliveries ADD CONSTRAINT deliveries_lease_only_while_pending
        CHECK (state = 'pending' OR lease_owner IS NULL);
    `,
  },
  {
    version: 15,
    description: 'an event counts the deliveries that name it, so no index of deliveries by event is written',
    sql: `
      -- The purge keeps an event while a delivery names it. deliveries_by_event answered that, at the price of an
      -- entry for every version of every delivery row (taken in, leased, moved on: three per delivery). The event
      -- now counts its deliveries instead: the count is written with the event, which is taken in with all of its
      -- deliveries in one transaction, and lowered by the trigger below whenever deliveries are deleted (the purge,
      -- or with their webhook or account), so a count read by the purge is never higher or lower than the rows.
      -- The default fills the column without rewriting the table; only the events that have deliveries are
      -- updated, and it is dropped after, so that every writer must state the count.
      ALTER TABLE events ADD COLUMN deliveries_left integer NOT NULL DEFAULT 0;
      UPDATE events e SET deliveries_left = named.n
        FROM (SELECT event_id, count(*)::int AS n FROM deliveries GROUP BY event_id) named
       WHERE e.id = named.event_id;
      ALTER TABLE events ALTER COLUMN deliveries_left DROP DEFAULT,
        ADD CONSTRAINT events_deliveries_left_counted CHECK (deliveries_left >= 0);
      CREATE FUNCTION jobhooks_count_deleted_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- Locked in id order, so that a batch of the purge and a webhook's deletion never wait for each other's events.
        PERFORM 1 FROM events WHERE id IN (SELECT event_id FROM deleted_rows) ORDER BY id FOR NO KEY UPDATE;
        UPDATE events e SET deliveries_left = e.deliveries_left - gone.n
          FROM (SELECT event_id, count(*)::int AS n FROM deleted_rows GROUP BY event_id) gone
         WHERE e.id = gone.event_id;
        RETURN NULL;
      END $$;
      CREATE TRIGGER deliveries_count_deleted AFTER DELETE ON deliveries
        REFERENCING OLD TABLE AS deleted_rows FOR EACH STATEMENT EXECUTE FUNCTION jobhooks_count_deleted_deliveries();
      DROP INDEX deliveries_by_event;
    `,
  },
  {
    version: 16,
    description:
      "the deliveries' primary key leads with their webhook, so no other index of deliveries by webhook is written",
    sql: `
      -- A webhook's deliveries, deleted with it, were found through deliveries_by_webhook: an entry for every version
      -- of every row, three per delivery. The primary key finds them now, and every statement that reads or moves a
      -- delivery by its id names its webhook too (store/postgres/deliveries.ts).
      ALTER TABLE deliveries DROP CONSTRAINT deliveries_pkey;
      ALTER TABLE deliveries ADD CONSTRAINT deliveries_pkey PRIMARY KEY (webhook_id, id);
      DROP INDEX deliveries_by_webhook;
    `,
  },
  {
    version: 17,
    description: "a logged attempt no longer checks its webhook's row: every writer holds that row's lock already",
    sql: `
      -- Each attempt logged looked up its webhook and locked it as it was written: one more query per attempt, inside
      -- transactions that hold the row already (a batch of results locks its webhooks first, store/postgres/
      -- deliveries.ts; a single logged attempt locks its webhook in its own statement, delivery-log.ts). A webhook's
      -- log is deleted with it, in the statement after the webhook's (store/postgres/webhooks.ts), which waits for
      -- every writer that holds the row, so it finds their rows too.
      ALTER TABLE delivery_attempts DROP CONSTRAINT delivery_attempts_webhook_id_fkey;
    `,
  },
  {
    version: 18,
    description: "a webhook's log goes with it however the webhook is deleted, by a trigger",
    sql: `
      -- Version 17 deleted a webhook's log in the service's own statement after the webhook's: a webhook deleted any
      -- other way (with its account, by hand, or by an instance of the version before) left its log behind. The
      -- trigger runs after every statement that deletes webhooks, cascades included. Its DELETE takes a snapshot of
      -- its own once the webhooks' rows are deleted, in READ COMMITTED (the service's transactions say so): every
      -- transaction that held one of those rows and logged attempts to it has committed by then.
      CREATE FUNCTION jobhooks_delete_logs_of_deleted_webhooks() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM delivery_attempts WHERE webhook_id IN (SELECT id FROM deleted_webhooks);
        RETURN NULL;
      END $$;
      CREATE TRIGGER webhooks_delete_logs AFTER DELETE ON webhooks
        REFERENCING OLD TABLE AS deleted_webhooks FOR EACH STATEMENT
        EXECUTE FUNCTION jobhooks_delete_logs_of_deleted_webhooks();
    `,
  },
  {
    version: 19,
    description:
      "a webhook's endpoint health counts its changes, so an instance can tell a newer read from an older one",
    sql: `
      -- Bumped by every write of the health columns (store/postgres/health-row.ts): a claim's read of the row, taken
      -- while this instance's own write of it was committing, is older than that write, and must not replace it.
      ALTER TABLE webhooks ADD COLUMN endpoint_health_revision bigint NOT NULL DEFAULT 0;
    `,
  },
];
