// Management API throughput with autocannon: GET one webhook and create, against the service, and the same
// two requests against a bare Fastify route returning the same JSON (the ceiling), each in its own process.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import autocannon from 'autocannon';

export interface ApiFigures {
  getPerSecond: number;
  createPerSecond: number;
  getCeilingPerSecond: number;
  createCeilingPerSecond: number;
}

interface Target {
  origin: string;
  token: string;
  webhookPath: string;
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

async function requestsPerSecond(url: string, options: Partial<autocannon.Options>, seconds: number): Promise<number> {
  await autocannon({ url, connections: CONNECTIONS, duration: WARM_UP_SECONDS, ...options });
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, ...options });
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0) throw new Error(`${url}: ${failed} of ${result.requests.total} requests failed (non-2xx ${result.non2xx}, errors ${result.errors})`);
  return result.requests.average;
}

async function measure(target: Target, seconds: number, authorized: boolean): Promise<{ get: number; create: number }> {
  const headers = { ...(authorized ? { authorization: `Token ${target.token}` } : {}), 'content-type': 'application/json' };
  const get = await requestsPerSecond(`${target.origin}${target.webhookPath}`, { method: 'GET', headers }, seconds);
  const create = await requestsPerSecond(`${target.origin}${target.createPath}`, { method: 'POST', headers, body: target.createBody }, seconds);
  return { get, create };
}

function startBareFastify(getBody: unknown, createBody: unknown): Promise<{ origin: string; child: ChildProcess }> {
  const tsx = require.resolve('tsx/cli');
  const child = spawn(process.execPath, [tsx, join(__dirname, 'bare-fastify.ts'), JSON.stringify({ getBody, createBody })], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => resolve({ origin: chunk.toString().trim(), child }));
    child.once('exit', (code) => reject(new Error(`bare Fastify exited ${code}`)));
  });
}

/** Creates one webhook to GET; the create load makes many more (the bench lifts the account's limit). */
export async function apiThroughput(target: Omit<Target, 'webhookPath'> & { webhookId: string; accountId: number }, seconds: number): Promise<ApiFigures> {
  const webhookPath = `/api/v3/accounts/${target.accountId}/webhooks/subscription/${target.webhookId}`;
  const full = { ...target, webhookPath };
  const headers = { authorization: `Token ${target.token}`, 'content-type': 'application/json' };
  const getBody: unknown = await (await fetch(`${target.origin}${webhookPath}`, { headers })).json();
  const createBody: unknown = await (await fetch(`${target.origin}${target.createPath}`, { method: 'POST', headers, body: target.createBody })).json();
  const service = await measure(full, seconds, true);
  const bare = await startBareFastify(getBody, createBody);
  try {
    const ceiling = await measure({ ...full, origin: bare.origin }, seconds, false);
    return { getPerSecond: service.get, createPerSecond: service.create, getCeilingPerSecond: ceiling.get, createCeilingPerSecond: ceiling.create };
  } finally {
    bare.child.removeAllListeners('exit');
    bare.child.kill('SIGTERM');
  }
}
