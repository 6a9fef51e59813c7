// The ceiling a delivery run is measured against: the same signed requests the receiver took from the service,
// POSTed again by a plain undici loop at the dispatcher's concurrency, with no storage.
import { Pool } from 'undici';
import type { BenchReceiver, SignedRequest } from './receiver';

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
  async function undiciLoop(receiver: BenchReceiver, requests: SignedRequest[]): Promise<number> {
    const pool = new Pool(receiver.url, { connections: concurrency });
    let next = 0;
    const started = performance.now();
    const loop = async () => {
      while (next < requests.length) {
        const { path, authorization, body } = requests[next++]!;
        const response = await pool.request({
          method: 'POST',
          path,
          headers: { authorization, 'content-type': 'application/json' },
          body,
        });
        await response.body.text();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, loop));
    const perSecond = requests.length / ((performance.now() - started) / 1000);
    await pool.close();
    return perSecond;
  }

  return async (receiver, requests, measure = (run) => run()) => {
    await undiciLoop(receiver, requests.slice(0, warmUpDeliveries));
    return measure(() => undiciLoop(receiver, requests));
  };
}
