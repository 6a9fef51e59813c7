// A real PostgreSQL for the suite, from Debian's package: one cluster per jest run (postgres-global.ts starts
// it), listening on a unix socket in a temporary folder only (no TCP port, no network), and one fresh database
// per test that asks. PostgreSQL refuses to run as root, so as root its programs run as the `postgres` user.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** Where the running cluster's socket folder is, for the test workers (set by startTestCluster). */
export const CLUSTER_ENV = 'JOBHOOKS_TEST_PG_SOCKET_DIR';
/** The backend the HTTP and pipeline suites run on in this jest project: sqlite (default) or postgres. */
export const BACKEND_ENV = 'JOBHOOKS_TEST_BACKEND';
/** '2' in the "postgres, two instances" jest project: the harness runs two services on one database. */
export const INSTANCES_ENV = 'JOBHOOKS_TEST_INSTANCES';
/** A fixed key for test services on PostgreSQL (JOBHOOKS_SECRET_KEY is required there). */
export const TEST_SECRET_KEY = 'a'.repeat(64);

export type TestBackend = 'sqlite' | 'postgres';

export function testBackend(): TestBackend {
  return process.env[BACKEND_ENV] === 'postgres' ? 'postgres' : 'sqlite';
}

/** The folder of Debian's PostgreSQL programs (JOBHOOKS_TEST_PG_BIN overrides), or a sentence saying how to get it. */
function binFolder(): string {
  const override = process.env.JOBHOOKS_TEST_PG_BIN;
  if (override) return override;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest === undefined) {
    throw new Error(
      'PostgreSQL is not installed: apt-get install -y --no-install-recommends postgresql (or set JOBHOOKS_TEST_PG_BIN).',
    );
  }
  return join(root, newest, 'bin');
}

const asRoot = () => process.getuid?.() === 0;

/** Runs a PostgreSQL program, as the postgres user when this process is root. */
function runPg(bin: string, program: string, args: string[]): void {
  const command = asRoot() ? 'runuser' : join(bin, program);
  const argv = asRoot() ? ['-u', 'postgres', '--', join(bin, program), ...args] : args;
  const result = spawnSync(command, argv, { encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`${program} failed (${result.status}): ${result.stderr || result.stdout}`);
  }
}

export interface TestCluster {
  socketDir: string;
  /** The cluster's data folder (postmaster.pid is there). */
  dataDir: string;
  stop(): void;
}

export interface TestClusterOptions {
  /**
   * Keep PostgreSQL's defaults for when a commit reaches the disk (fsync, synchronous_commit): the benchmark
   * measures what an operator runs. The tests turn them off, as nothing there outlives the run.
   */
  durable?: boolean;
  /** Load pg_stat_statements, so the benchmark can count the statements a run costs and time their planning. */
  countStatements?: boolean;
}

/** initdb into a temporary folder and start it; about 1.5 s. */
export function startTestCluster(clusterOptions: TestClusterOptions = {}): TestCluster {
  const bin = binFolder();
  const dir = mkdtempSync(join(tmpdir(), 'jobhooks-pg-'));
  if (asRoot()) execFileSync('chown', ['postgres:', dir]);
  chmodSync(dir, 0o755);
  const data = join(dir, 'data');
  runPg(bin, 'initdb', ['--no-sync', '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '-D', data]);
  const options = [
    `-c listen_addresses=''`,
    `-c unix_socket_directories=${dir}`,
    ...(clusterOptions.durable ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off']),
    '-c max_connections=300',
    ...(clusterOptions.countStatements
      ? ['-c shared_preload_libraries=pg_stat_statements', '-c pg_stat_statements.track_planning=on']
      : []),
  ].join(' ');
  runPg(bin, 'pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
  return {
    socketDir: dir,
    dataDir: data,
    stop() {
      try {
        runPg(bin, 'pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** The URL of database `name` on the suite's cluster. */
export function clusterUrl(name: string, socketDir = process.env[CLUSTER_ENV]): string {
  if (!socketDir) throw new Error(`${CLUSTER_ENV} is not set: this test needs the postgres jest project's cluster.`);
  return `postgresql://postgres@localhost/${name}?host=${encodeURIComponent(socketDir)}`;
}

let databasesMade = 0;

/** A new empty database on the suite's cluster (or the one in `socketDir`); resolves with its URL. */
export async function createTestDatabase(socketDir = process.env[CLUSTER_ENV]): Promise<string> {
  const name = `t_${process.pid}_${(databasesMade += 1)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: clusterUrl('postgres', socketDir) });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return clusterUrl(name, socketDir);
}

/** Drops a database createTestDatabase made, once nothing is connected to it (the bench's runs, one after another). */
export async function dropTestDatabase(url: string): Promise<void> {
  const parsed = new URL(url);
  const name = parsed.pathname.slice(1);
  if (!/^t_\d+_\d+_[a-z0-9]+$/.test(name)) throw new Error(`${name} is not a database createTestDatabase made`);
  const admin = new pg.Client({
    connectionString: clusterUrl('postgres', parsed.searchParams.get('host') ?? undefined),
  });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/**
 * For a PostgreSQL-only test file: the postgres jest project starts one cluster for the run; run alone (with
 * --runTestsByPath and no project), the file starts its own for its tests and stops it after them.
 */
export function useSuiteCluster(): void {
  let ownCluster: TestCluster | null = null;
  beforeAll(() => {
    if (process.env[CLUSTER_ENV]) return;
    ownCluster = startTestCluster();
    process.env[CLUSTER_ENV] = ownCluster.socketDir;
  });
  afterAll(() => {
    if (ownCluster === null) return;
    ownCluster.stop();
    delete process.env[CLUSTER_ENV];
  });
}
