// The schema, as an append-only list of migrations: a database made by an older build opens in a newer one.
import type { Migration } from '../rows';

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'accounts, tokens, subscriptions, idempotency keys, and the delivery pipeline tables',
    sql: `
      CREATE TABLE accounts (
        id          INTEGER PRIMARY KEY,
        identifier  TEXT    NOT NULL UNIQUE,
        name        TEXT    NOT NULL,
        plan        TEXT    NOT NULL,
        created_at  INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE api_tokens (
        id              TEXT    PRIMARY KEY,
        account_id      INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name            TEXT    NOT NULL,
        permission_set  TEXT    NOT NULL,
        token_hash      TEXT    NOT NULL UNIQUE,
        created_at      INTEGER NOT NULL,
        revoked_at      INTEGER
      ) STRICT;
      CREATE INDEX api_tokens_by_account ON api_tokens(account_id, created_at);

      -- Times are microseconds since the Unix epoch. event_types and job_ids are JSON arrays kept in the
      -- order they were written, because clients compare what they read back with what they sent.
      CREATE TABLE subscriptions (
        id                    TEXT    PRIMARY KEY,
        account_id            INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name                  TEXT    NOT NULL,
        description           TEXT    NOT NULL,
        client_url            TEXT    NOT NULL,
        event_types           TEXT    NOT NULL,
        job_ids               TEXT    NOT NULL,
        active                INTEGER NOT NULL,
        sealed_secret         TEXT    NOT NULL,
        created_at            INTEGER NOT NULL,
        updated_at            INTEGER NOT NULL,
        dispatched_at         INTEGER,
        http_status_code      TEXT    NOT NULL DEFAULT '0',
        consecutive_failures  INTEGER NOT NULL DEFAULT 0,
        failing_since         INTEGER,
        last_failure_at       INTEGER,
        archived_at           INTEGER,
        archived_reason       TEXT
      ) STRICT;
      CREATE INDEX subscriptions_by_account ON subscriptions(account_id, created_at, id);

      CREATE TABLE idempotency_keys (
        account_id       INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        key              TEXT    NOT NULL,
        request_hash     TEXT    NOT NULL,
        subscription_id  TEXT    NOT NULL,
        created_at       INTEGER NOT NULL,
        PRIMARY KEY (account_id, key)
      ) STRICT;
      CREATE INDEX idempotency_keys_by_age ON idempotency_keys(created_at);

      -- One row per job-run event taken in; (account, run, type) makes ingestion idempotent.
      CREATE TABLE events (
        id          TEXT    PRIMARY KEY,
        account_id  INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        event_type  TEXT    NOT NULL,
        run_id      TEXT    NOT NULL,
        job_id      TEXT    NOT NULL,
        created_at  INTEGER NOT NULL,
        UNIQUE (account_id, run_id, event_type)
      ) STRICT;

      -- One row per event x subscription. payload holds the exact bytes that are signed and sent on
      -- every attempt. A claim is a lease (owner + expiry), so a crashed dispatcher's work becomes due again.
      CREATE TABLE deliveries (
        id                TEXT    PRIMARY KEY,
        event_id          TEXT    NOT NULL REFERENCES events(id) ON DELETE CASCADE,
        subscription_id   TEXT    NOT NULL REFERENCES subscriptions(id) ON DELETE CASCADE,
        state             TEXT    NOT NULL CHECK (state IN ('pending', 'succeeded', 'failed', 'skipped')),
        payload           BLOB    NOT NULL,
        attempts          INTEGER NOT NULL DEFAULT 0,
        next_attempt_at   INTEGER,
        lease_owner       TEXT,
        lease_expires_at  INTEGER,
        created_at        INTEGER NOT NULL,
        updated_at        INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX deliveries_due ON deliveries(next_attempt_at) WHERE state = 'pending';
      CREATE INDEX deliveries_by_subscription ON deliveries(subscription_id, created_at);

      -- The delivery log: every attempt, kept 7 days.
      CREATE TABLE delivery_attempts (
        id                INTEGER PRIMARY KEY AUTOINCREMENT,
        delivery_id       TEXT    REFERENCES deliveries(id) ON DELETE CASCADE,
        subscription_id   TEXT    NOT NULL REFERENCES subscriptions(id) ON DELETE CASCADE,
        event_id          TEXT    NOT NULL,
        event_type        TEXT    NOT NULL,
        attempt           INTEGER NOT NULL,
        requested_at      INTEGER NOT NULL,
        duration_ms       INTEGER NOT NULL,
        status_code       TEXT    NOT NULL,
        error             TEXT,
        success           INTEGER NOT NULL,
        response_excerpt  TEXT,
        is_test           INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE INDEX delivery_attempts_by_subscription ON delivery_attempts(subscription_id, requested_at);
      CREATE INDEX delivery_attempts_by_age ON delivery_attempts(requested_at);
    `,
  },
  {
    version: 2,
    description: 'indexes for the delivery pipeline: cascades, retention purge',
    sql: `
      -- Deleting a delivery or an event cascades; without these each cascade would scan its child table.
      CREATE INDEX deliveries_by_event ON deliveries(event_id);
      CREATE INDEX delivery_attempts_by_delivery ON delivery_attempts(delivery_id);
      -- The retention purge looks for finished deliveries and events by age.
      CREATE INDEX deliveries_finished_by_age ON deliveries(updated_at) WHERE state <> 'pending';
      CREATE INDEX events_by_age ON events(created_at);
    `,
  },
  {
    version: 3,
    description: 'pending deliveries indexed by subscription, for claims that do not grow with the backlog',
    sql: `
      -- A claim reads each subscription's oldest due deliveries. deliveries_due, ordered by time alone, made a
      -- claim read every due row of a webhook with no room left; it goes, because every index is one more page
      -- written by each ingestion, lease and result.
      CREATE INDEX deliveries_pending_by_subscription ON deliveries(subscription_id, next_attempt_at) WHERE state = 'pending';
      DROP INDEX deliveries_due;
    `,
  },
  {
    version: 4,
    description: 'the signature of a delivery that will be tried again, so no attempt signs twice',
    sql: `
      -- Set when an attempt fails and the delivery waits for a retry: the retry (after a restart too) sends the
      -- signature the first attempt computed. It stays valid because a webhook's secret never changes (
      -- it is issued once, at creation); a feature that changed secrets would have to clear it.
      ALTER TABLE deliveries ADD COLUMN signature TEXT;
    `,
  },
  {
    version: 5,
    description: 'the payload bytes all webhooks of an event share, stored once per event',
    sql: `
      -- An event's run data is the end of every one of its deliveries' payloads ("data" is the last field). It
      -- is kept here once; a delivery's payload is then only its head, and the bytes sent are the head followed
      -- by this tail. Events taken in before have no tail: their deliveries' payloads are the whole bytes.
      -- Each delivery row shrinks from about a kilobyte to about two hundred bytes, and it is written three
      -- times (ingestion, lease, result).
      ALTER TABLE events ADD COLUMN payload_tail BLOB;
    `,
  },
  {
    version: 6,
    description: 'a row the readiness check writes, so /readyz proves the database can still be written',
    sql: `
      CREATE TABLE readiness_probe (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        checked_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 7,
    description: 'a known text sealed with the secret key, so a start with another key is refused',
    sql: `
      -- Webhook secrets are sealed with JOBHOOKS_SECRET_KEY or secret.key. A start with another key (a restore
      -- without the key file, a mistyped variable) would fail every delivery; this row lets it be refused.
      CREATE TABLE secret_key_check (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        sealed TEXT NOT NULL
      );
    `,
  },
  {
    version: 8,
    description: 'idempotency keys are stored as their SHA-256, never in clear',
    sql: `
      -- A key replays the create response, hmac_secret included, for 24 hours: like an API token, it is kept
      -- only as a hash from now on. Keys stored in clear before are dropped (a retry of such a create within
      -- the day makes a new webhook, as a create without a key would).
      DELETE FROM idempotency_keys;
    `,
  },
  {
    version: 9,
    description: 'the webhooks table and its columns take the word the code and the API documents use',
    sql: `
      -- The table was named after the API's paths ("subscriptions"); the code, the UI and the docs say
      -- "webhook". SQLite renames a table and a column in its schema alone (no row is copied), and rewrites
      -- the foreign keys, indexes and triggers that name them. Indexes are renamed by making them again.
      ALTER TABLE subscriptions RENAME TO webhooks;
      ALTER TABLE deliveries RENAME COLUMN subscription_id TO webhook_id;
      ALTER TABLE delivery_attempts RENAME COLUMN subscription_id TO webhook_id;
      ALTER TABLE idempotency_keys RENAME COLUMN subscription_id TO webhook_id;
      DROP INDEX subscriptions_by_account;
      CREATE INDEX webhooks_by_account ON webhooks(account_id, created_at, id);
      DROP INDEX deliveries_by_subscription;
      CREATE INDEX deliveries_by_webhook ON deliveries(webhook_id, created_at);
      DROP INDEX deliveries_pending_by_subscription;
      CREATE INDEX deliveries_pending_by_webhook ON deliveries(webhook_id, next_attempt_at) WHERE state = 'pending';
      DROP INDEX delivery_attempts_by_subscription;
      CREATE INDEX delivery_attempts_by_webhook ON delivery_attempts(webhook_id, requested_at);
    `,
  },
  {
    version: 10,
    description: 'a rotated secret is kept, sealed, for the overlap in which deliveries carry both signatures',
    sql: `
      ALTER TABLE webhooks ADD COLUMN previous_sealed_secret TEXT;
      ALTER TABLE webhooks ADD COLUMN previous_secret_until INTEGER;
    `,
  },
  {
    version: 11,
    description: 'a failed delivery put back by a recovery gets one attempt more, not a new retry schedule',
    sql: `
      ALTER TABLE deliveries ADD COLUMN last_attempt INTEGER NOT NULL DEFAULT 0;
      -- A recovery looks for a webhook's failed deliveries by age.
      CREATE INDEX deliveries_failed_by_webhook ON deliveries(webhook_id, created_at) WHERE state = 'failed';
    `,
  },
  {
    version: 12,
    description: "the delivery log keeps each response's headers beside the start of its body",
    sql: `
      -- JSON, at most about 4 KiB; NULL in rows logged before.
      ALTER TABLE delivery_attempts ADD COLUMN response_headers TEXT;
    `,
  },
  {
    version: 13,
    description: 'columns that were written and never read are dropped',
    sql: `
      -- Columns nothing read: a delivery's signature (every attempt signs anew, over its own timestamp), the lease's
      -- end (while leased, next_attempt_at holds it: an expired lease is simply due again), and an event's job id
      -- (the fan-out reads it from the event as it is taken in, never from the row).
      ALTER TABLE deliveries DROP COLUMN signature;
      ALTER TABLE deliveries DROP COLUMN lease_expires_at;
      ALTER TABLE events DROP COLUMN job_id;
    `,
  },
  {
    version: 14,
    description: "credential headers of receivers' answers are masked in rows logged before masking",
    sql: `
      -- Rows logged before the delivery log masked credential headers hold their values: masked now, as every new
      -- row is (delivery/answer-excerpt.ts, ALWAYS_MASKED_HEADERS; a migration keeps the list it was written with).
      UPDATE delivery_attempts SET response_headers = json_set(response_headers, '$."set-cookie"', '(masked)')
       WHERE json_valid(response_headers) AND json_extract(response_headers, '$."set-cookie"') IS NOT NULL;
      UPDATE delivery_attempts SET response_headers = json_set(response_headers, '$."cookie"', '(masked)')
       WHERE json_valid(response_headers) AND json_extract(response_headers, '$."cookie"') IS NOT NULL;
      UPDATE delivery_attempts SET response_headers = json_set(response_headers, '$."authorization"', '(masked)')
       WHERE json_valid(response_headers) AND json_extract(response_headers, '$."authorization"') IS NOT NULL;
      UPDATE delivery_attempts SET response_headers = json_set(response_headers, '$."proxy-authorization"', '(masked)')
       WHERE json_valid(response_headers) AND json_extract(response_headers, '$."proxy-authorization"') IS NOT NULL;
    `,
  },
  {
    version: 15,
    description: 'the hourly rollup of the delivery log that the statistics endpoints read',
    sql: `
      -- Per webhook and hour (its start, in microseconds): attempts and finished deliveries by outcome, and attempts
      -- by duration (ms_le_N: at most N ms, above the bucket before; ms_le_10000 holds every duration above 5 s), as
      -- domain/delivery-stats.ts reads them. Written with each batch of results, purged with the log.
      CREATE TABLE delivery_stats (
        webhook_id           TEXT    NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        account_id           INTEGER NOT NULL,
        hour                 INTEGER NOT NULL,
        attempts_succeeded   INTEGER NOT NULL DEFAULT 0,
        attempts_failed      INTEGER NOT NULL DEFAULT 0,
        deliveries_succeeded INTEGER NOT NULL DEFAULT 0,
        deliveries_failed    INTEGER NOT NULL DEFAULT 0,
        ms_le_5              INTEGER NOT NULL DEFAULT 0,
        ms_le_10             INTEGER NOT NULL DEFAULT 0,
        ms_le_25             INTEGER NOT NULL DEFAULT 0,
        ms_le_50             INTEGER NOT NULL DEFAULT 0,
        ms_le_100            INTEGER NOT NULL DEFAULT 0,
        ms_le_250            INTEGER NOT NULL DEFAULT 0,
        ms_le_500            INTEGER NOT NULL DEFAULT 0,
        ms_le_1000           INTEGER NOT NULL DEFAULT 0,
        ms_le_2500           INTEGER NOT NULL DEFAULT 0,
        ms_le_5000           INTEGER NOT NULL DEFAULT 0,
        ms_le_10000          INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (account_id, hour, webhook_id)
      ) STRICT, WITHOUT ROWID;
      -- Stored in the order of the account's reads (all its webhooks over a window), so those read neighbouring
      -- pages; a webhook's own hours, and the upsert of a batch, go through this index.
      CREATE UNIQUE INDEX delivery_stats_by_webhook ON delivery_stats(webhook_id, hour);
      CREATE INDEX delivery_stats_by_age ON delivery_stats(hour);
      -- The log already kept (at most 7 days) is rolled up once, so charts start full. A delivery counts as finished
      -- in the hour of its last logged attempt.
      INSERT INTO delivery_stats (webhook_id, account_id, hour, attempts_succeeded, attempts_failed, deliveries_succeeded,
                                  deliveries_failed, ms_le_5, ms_le_10, ms_le_25, ms_le_50, ms_le_100, ms_le_250, ms_le_500, ms_le_1000, ms_le_2500, ms_le_5000, ms_le_10000)
      SELECT a.webhook_id, w.account_id, (a.requested_at / 3600000000) * 3600000000 AS hour,
             sum(CASE WHEN a.success = 1 THEN 1 ELSE 0 END),
             sum(CASE WHEN a.success = 0 THEN 1 ELSE 0 END),
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
       WHERE a.is_test = 0
       GROUP BY a.webhook_id, w.account_id, (a.requested_at / 3600000000) * 3600000000;
    `,
  },
  {
    version: 16,
    description: "operational endpoints are webhooks of their own kind, which jobhooks' own API alone shows",
    sql: `
      -- 'job': a webhook of the dbt-compatible API; 'operational': an account's operational endpoint
      -- (docs/operational-webhooks.md), delivered to by the same pipeline, never listed by the dbt-compatible API.
      ALTER TABLE webhooks ADD COLUMN kind TEXT NOT NULL DEFAULT 'job' CHECK (kind IN ('job', 'operational'));
    `,
  },
  {
    version: 17,
    description: "an event keeps its trace context, so every attempt, on any instance, continues the event's trace",
    sql: `
      -- The W3C traceparent of the event's ingestion span (each attempt is a child of it) and the caller's tracestate;
      -- NULL in events taken in before (their attempts each start a trace of their own).
      ALTER TABLE events ADD COLUMN traceparent TEXT;
      ALTER TABLE events ADD COLUMN tracestate TEXT;
    `,
  },
  {
    version: 18,
    description: "a webhook's own delivery rate, and when its next request may start",
    sql: `
      -- max_requests_per_second: NULL for no limit. rate_next_at (microseconds): the earliest start of the webhook's
      -- next request, moved on by each request's start slot (domain/send-rate.ts).
      ALTER TABLE webhooks ADD COLUMN max_requests_per_second INTEGER;
      ALTER TABLE webhooks ADD COLUMN rate_next_at INTEGER;
    `,
  },
  {
    version: 19,
    description: "an account's webhooks of one kind are counted from an index, not by reading every row",
    sql: `
      -- Each create counts the account's webhooks of its kind (the per-account limit); webhooks_by_account has no
      -- kind, so the count read every webhook row of the account.
      CREATE INDEX webhooks_by_account_kind ON webhooks(account_id, kind);
    `,
  },
];
