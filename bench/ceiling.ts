// The ceiling a delivery run is measured against: the same signed requests the receiver took from the service (their
// headers and bodies), POSTed again by a plain undici loop at the dispatcher's concurrency, with no storage.
import { Pool } from 'undici';
import type { BenchReceiver, SignedRequest } from './receiver';

/** Headers about the connection and the body's length, which the replaying client writes itself. */
const CLIENT_HEADERS = new Set(['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

interface Replayed {
  path: string;
  /** Names and values in turn, as undici takes them: a header sent twice is sent twice again. */
  headers: string[];
  body: Buffer;
}

/** A captured request as the loop sends it: every header the service sent but those undici writes itself. */
function replayed({ path, rawHeaders, body }: SignedRequest): Replayed {
  const headers: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2)
    if (!CLIENT_HEADERS.has(rawHeaders[i]!.toLowerCase())) headers.push(rawHeaders[i]!, rawHeaders[i + 1]!);
  return { path, headers, body };
}

export type DeliveryCeiling = (
  receiver: BenchReceiver,
  requests: SignedRequest[],
  measure?: (run: () => Promise<number>) => Promise<number>,
) => Promise<number>;

/**
 * Requests a second of the loop, after the first `warmUpDeliveries` of them replayed untimed (the service is measured
 * after a warm-up too); `measure` wraps the timed replay alone (--threads).
 */
export function createDeliveryCeiling(concurrency: number, warmUpDeliveries: number): DeliveryCeiling {
  async function undiciLoop(receiver: BenchReceiver, requests: readonly Replayed[]): Promise<number> {
    const pool = new Pool(receiver.url, { connections: concurrency });
    let next = 0;
    const started = performance.now();
    const loop = async () => {
      while (next < requests.length) {
        const { path, headers, body } = requests[next++]!;
        const response = await pool.request({ method: 'POST', path, headers, body });
        await response.body.text();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, loop));
    const perSecond = requests.length / ((performance.now() - started) / 1000);
    await pool.close();
    return perSecond;
  }

  return async (receiver, captured, measure = (run) => run()) => {
    // Made ready before the warm-up, so that neither the timed replay nor its CPU reading includes it.
    const requests = captured.map(replayed);
    await undiciLoop(receiver, requests.slice(0, warmUpDeliveries));
    return measure(() => undiciLoop(receiver, requests));
  };
}
