// Management API throughput with autocannon: GET one webhook and create, against the service, and the same
// two requests against a bare Fastify route returning the same JSON (the ceiling), each in its own process,
// taking turns.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { processCpuSeconds } from './thread-cpu';

export interface ApiFigures {
  getPerSecond: number;
  createPerSecond: number;
  getCeilingPerSecond: number;
  createCeilingPerSecond: number;
  /** CPU microseconds per request of the service's process (all its threads), and of the bare route's. */
  getCpuUs: number;
  getCeilingCpuUs: number;
}

interface Target {
  origin: string;
  /** The service's process, whose CPU per request is counted. */
  pid: number;
  token: string;
  accountId: number;
  webhookId: string;
  createPath: string;
  createBody: string;
}

const CONNECTIONS = 32;
/**
 * Each server gets this long under the same load before it is measured. The first second of a run is the
 * slowest for both (connections opening, the route's code not yet optimised by V8), and it weighs more on the
 * slower server: measured, GET ran at about a third of its later rate in its first second, the bare route at
 * about two thirds.
 */
const WARM_UP_SECONDS = 1;

/**
 * A turn of load: the requests answered in it, their median latency in ms (autocannon's), and the CPU seconds the
 * server's process used meanwhile (0 when its pid is not known).
 */
interface Turn {
  requests: number;
  p50Ms: number;
  cpuSeconds: number;
}

/** Requests answered by `url` in `seconds` of load, after the warm-up; a failed request fails the run. */
async function requestsIn(
  url: string,
  options: Partial<autocannon.Options>,
  seconds: number,
  serverPid?: number,
): Promise<Turn> {
  await autocannon({ url, connections: CONNECTIONS, duration: WARM_UP_SECONDS, ...options });
  const cpuBefore = serverPid === undefined ? 0 : processCpuSeconds(serverPid);
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, ...options });
  const cpuSeconds = serverPid === undefined ? 0 : processCpuSeconds(serverPid) - cpuBefore;
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0)
    throw new Error(
      `${url}: ${failed} of ${result.requests.total} requests failed (non-2xx ${result.non2xx}, errors ${result.errors})`,
    );
  return { requests: result.requests.total, p50Ms: result.latency.p50, cpuSeconds };
}

/**
 * The service and its ceiling take turns, ROUNDS times, each for its share of `seconds`, and each rate is the
 * sum of its turns. The machine's speed drifts over a run (this VM's ceilings moved by half between runs);
 * measured back to back, both sides see the same drift, so the ratio compares them and not two moments.
 */
const ROUNDS = 2;

/**
 * `service` and `ceiling` in requests a second; `serviceP50Ms` the service's median latency, averaged over its
 * turns; `serviceCpuUs` and `ceilingCpuUs` each server's CPU microseconds per request, when `pids` names them.
 * A ratio moves with how fast the machine runs each side; CPU per request tells a dearer request from a machine
 * that favoured the ceiling in that run.
 */
export interface AgainstCeiling {
  service: number;
  ceiling: number;
  serviceP50Ms: number;
  serviceCpuUs: number;
  ceilingCpuUs: number;
}

export async function rateAgainstCeiling(
  service: string,
  ceiling: string,
  options: { service: Partial<autocannon.Options>; ceiling: Partial<autocannon.Options> },
  seconds: number,
  pids: { service?: number; ceiling?: number } = {},
): Promise<AgainstCeiling> {
  const turn = seconds / ROUNDS;
  const served = { requests: 0, cpuSeconds: 0 };
  const ceilingServed = { requests: 0, cpuSeconds: 0 };
  let p50Sum = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    const measured = await requestsIn(service, options.service, turn, pids.service);
    served.requests += measured.requests;
    served.cpuSeconds += measured.cpuSeconds;
    p50Sum += measured.p50Ms;
    const ceilingMeasured = await requestsIn(ceiling, options.ceiling, turn, pids.ceiling);
    ceilingServed.requests += ceilingMeasured.requests;
    ceilingServed.cpuSeconds += ceilingMeasured.cpuSeconds;
  }
  const cpuUs = ({ requests, cpuSeconds }: typeof served) => Number(((cpuSeconds * 1e6) / requests).toFixed(1));
  return {
    service: served.requests / seconds,
    ceiling: ceilingServed.requests / seconds,
    serviceP50Ms: p50Sum / ROUNDS,
    serviceCpuUs: cpuUs(served),
    ceilingCpuUs: cpuUs(ceilingServed),
  };
}

function startBareFastify(getBody: unknown, createBody: unknown): Promise<{ origin: string; child: ChildProcess }> {
  // tsx as a loader of this node, not its CLI (which runs a second node): the child's pid is the server's, whose
  // CPU is counted.
  const child = spawn(
    process.execPath,
    [
      '--import',
      pathToFileURL(require.resolve('tsx')).href,
      join(__dirname, 'bare-fastify.ts'),
      JSON.stringify({ getBody, createBody }),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => resolve({ origin: chunk.toString().trim(), child }));
    child.once('exit', (code) => reject(new Error(`bare Fastify exited ${code}`)));
  });
}

/** Creates one webhook to GET; the create load makes many more (the bench lifts the account's limit). */
export async function apiThroughput(target: Target, seconds: number): Promise<ApiFigures> {
  const webhookPath = `/api/v3/accounts/${target.accountId}/webhooks/subscription/${target.webhookId}`;
  const authorized = { authorization: `Token ${target.token}`, 'content-type': 'application/json' };
  const plain = { 'content-type': 'application/json' };
  const getBody: unknown = await (await fetch(`${target.origin}${webhookPath}`, { headers: authorized })).json();
  const createBody: unknown = await (
    await fetch(`${target.origin}${target.createPath}`, {
      method: 'POST',
      headers: authorized,
      body: target.createBody,
    })
  ).json();
  const bare = await startBareFastify(getBody, createBody);
  try {
    const get = await rateAgainstCeiling(
      `${target.origin}${webhookPath}`,
      `${bare.origin}${webhookPath}`,
      { service: { method: 'GET', headers: authorized }, ceiling: { method: 'GET', headers: plain } },
      seconds,
      { service: target.pid, ceiling: bare.child.pid },
    );
    const create = await rateAgainstCeiling(
      `${target.origin}${target.createPath}`,
      `${bare.origin}${target.createPath}`,
      {
        service: { method: 'POST', headers: authorized, body: target.createBody },
        ceiling: { method: 'POST', headers: plain, body: target.createBody },
      },
      seconds,
    );
    return {
      getPerSecond: get.service,
      createPerSecond: create.service,
      getCeilingPerSecond: get.ceiling,
      createCeilingPerSecond: create.ceiling,
      getCpuUs: get.serviceCpuUs,
      getCeilingCpuUs: get.ceilingCpuUs,
    };
  } finally {
    bare.child.removeAllListeners('exit');
    bare.child.kill('SIGTERM');
  }
}
