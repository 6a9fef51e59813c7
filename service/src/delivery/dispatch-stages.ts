// The stages of the dispatcher, each a function with a typed result (docs/life-of-a-delivery.md):
// claim (lease due deliveries), prepare (skip, or plan the attempt), attempt (sign, send: attempt.ts), and
// record (the result, written with the others of the same turn in one transaction).
import type { Micros } from '../core/time';
import { BoundedMap } from '../core/bounded-map';
import { type Clock, nowMicros } from '../core/clock';
import { type RandomBytes, uniformFraction } from '../core/random';
import { createTurnBatch } from '../core/turn-batch';
import type { AttemptResult } from '../domain/attempt';
import type { ClaimedDelivery } from '../domain/delivery';
import { skippedAtClaim } from '../domain/delivery-lifecycle';
import type { SecretBox } from '../security/secret-box';
import type { OperationalEventMaker } from '../store/operational-plan';
import type { Store } from '../store/store';
import { nextDispatchState } from './archive-policy';
import { type AttemptMade, type AttemptPlan, scheduledResult } from './attempt';
import {
  chooseClaims,
  type ClaimRoom,
  fullElsewhere,
  nextRateWake,
  saturatedWebhooks,
  unprovenWithoutShare,
} from './claim-choice';
import type { EndpointHealthRegistry } from './endpoint-health';
import { signingSecrets } from './signing-secrets';

/** Decrypted webhook secrets kept at most; past that the cache starts over (one decryption per webhook again). */
const OPENED_SECRETS_KEPT = 10_000;

/**
 * How long claims leave out a webhook that other instances' requests filled (fullElsewhere in claim-choice.ts): long
 * enough for the claims after it to look at other webhooks, short enough that one whose requests elsewhere end is
 * looked at again within a second. Those instances keep sending to it meanwhile.
 */
const FULL_ELSEWHERE_HOLD_MICROS: Micros = 1_000_000;
/** The least time an unproven webhook left out for its share stays out (see heldForShare). */
const HELD_FOR_SHARE_MIN_MICROS: Micros = 1_000_000;

export interface StageDeps {
  store: Store;
  clock: Clock;
  random: RandomBytes;
  secretBox: SecretBox;
  /** This dispatcher's name on its leases; unique per process. */
  owner: string;
  /** How long a claim lasts; longer than an attempt (10 s) plus recording it. */
  leaseMicros: Micros;
  retryDelaysSeconds: readonly number[];
  /** Told, before each claim chooses, the endpoint health the store read with it. */
  health: EndpointHealthRegistry;
  onError: (error: unknown, stage: string) => void;
  /** Makes the operational events the results make true (docs/operational-webhooks.md); none when absent. */
  operationalEvents?: OperationalEventMaker;
}

/** What a claim leased, until when, and when to look again for deliveries it left because of a webhook's rate (or null). */
export interface Claimed {
  deliveries: ClaimedDelivery[];
  leaseUntil: Micros;
  rateWakeAt: Micros | null;
  /**
   * How many webhooks it could send nothing to (full on other instances, or unproven with their share of the slots
   * used), left out of the claims that follow: one now may find others further down.
   */
  newlyHeldOut: number;
}

/** What to do with a claimed delivery: nothing to send (its webhook is archived or inactive), or an attempt. */
export type Prepared = { kind: 'skip' } | { kind: 'attempt'; plan: AttemptPlan };

export function createDispatchStages(deps: StageDeps) {
  const { store, clock, owner } = deps;
  const openedSecrets = new BoundedMap<string, string>(OPENED_SECRETS_KEPT);
  /** Webhooks left out of claims until the time each maps to (FULL_ELSEWHERE_HOLD_MICROS). */
  const heldFullElsewhere = new Map<string, Micros>();
  /**
   * Webhooks whose endpoints are not proven healthy, left out of claims while such endpoints hold every slot they may
   * share (unprovenWithoutShare in claim-choice.ts), each since the time it maps to. Once most of that share is free
   * again (as many of its slots as of the others), all are looked at again, the oldest due first; with less room,
   * only those held for a second or more. A slot or two freed at a time (hung requests timing out one by one) must
   * not send the claims back to the oldest of thousands each time, never past them to the proven webhooks.
   */
  const heldForShare = new Map<string, Micros>();

  /** The webhooks still held, after forgetting those whose time is over (or that a clock set back left too far). */
  function stillFullElsewhere(now: Micros): string[] {
    for (const [webhookId, until] of heldFullElsewhere)
      if (until <= now || until - now > FULL_ELSEWHERE_HOLD_MICROS) heldFullElsewhere.delete(webhookId);
    return [...heldFullElsewhere.keys()];
  }

  /** The unproven webhooks still held (see heldForShare). */
  function stillHeldForShare(room: ClaimRoom, now: Micros): string[] {
    if (room.unprovenTotal >= room.total - room.unprovenTotal) heldForShare.clear();
    else if (room.unprovenTotal > 0)
      for (const [webhookId, since] of heldForShare)
        if (now - since >= HELD_FOR_SHARE_MIN_MICROS || since > now) heldForShare.delete(webhookId);
    return [...heldForShare.keys()];
  }

  /** Each webhook's secret is decrypted once, not once per attempt; keyed by the sealed form, so a new secret misses. */
  function secretOf(sealed: string): string {
    let secret = openedSecrets.get(sealed);
    if (secret === undefined) {
      secret = deps.secretBox.open(sealed);
      openedSecrets.set(sealed, secret);
    }
    return secret;
  }

  /**
   * Stage 1: leases as many due deliveries as `room` has space for, oldest first within each webhook, leaving alone
   * the rate-limited webhooks that have a delivery waiting for its start (`waitingToStart`, start-slots.ts), and those
   * that a claim which looked at all the webhooks it may could send nothing to: those full on other instances, for
   * a second, and those whose endpoints are not proven healthy, while such endpoints hold all of their share.
   */
  async function claim(room: ClaimRoom, waitingToStart: readonly string[]): Promise<Claimed> {
    const now = nowMicros(clock);
    const leaseUntil = now + deps.leaseMicros;
    let rateWakeAt: Micros | null = null;
    let newlyHeldOut = 0;
    const deliveries = await store.deliveries.claimDue(
      {
        owner,
        now,
        leaseUntil,
        perWebhook: Math.min(room.maxPerWebhook, room.total),
        excludeWebhookIds: [
          ...saturatedWebhooks(room),
          ...waitingToStart,
          ...stillFullElsewhere(now),
          ...stillHeldForShare(room, now),
        ],
      },
      (candidates, window) => {
        // The room's rules go by the endpoint health the store read just now (another instance's answers too).
        for (const { webhookId, endpointHealth, endpointHealthRevision } of candidates)
          deps.health.adopt(webhookId, endpointHealth, endpointHealthRevision);
        const roomNow = { ...room, now };
        const chosen = chooseClaims(candidates, roomNow);
        rateWakeAt = nextRateWake(candidates, now);
        // Only a claim that looked at all the webhooks it may and left room unused needs to look further.
        if (window.full && chosen.length < room.total) {
          const full = fullElsewhere(candidates, roomNow);
          for (const webhookId of full) heldFullElsewhere.set(webhookId, now + FULL_ELSEWHERE_HOLD_MICROS);
          const unproven = unprovenWithoutShare(candidates, chosen, roomNow);
          for (const webhookId of unproven) if (!heldForShare.has(webhookId)) heldForShare.set(webhookId, now);
          newlyHeldOut = full.length + unproven.length;
        }
        return chosen;
      },
    );
    return { deliveries, leaseUntil, rateWakeAt, newlyHeldOut };
  }

  /**
   * Stage 2: an archived or deactivated webhook gets no request. The others get an attempt at the fixed bytes;
   * a secret this key cannot open (a damaged row: the service starts only with the database's key) makes a
   * failed attempt that says so, instead of an error that would lease the delivery again forever.
   */
  function prepare(delivery: ClaimedDelivery): Prepared {
    if (skippedAtClaim(delivery)) return { kind: 'skip' };
    return {
      kind: 'attempt',
      plan: {
        target: {
          deliveryId: delivery.id,
          webhookId: delivery.webhookId,
          eventId: delivery.eventId,
          eventType: delivery.eventType,
          attempt: delivery.attempts + 1,
        },
        url: delivery.clientUrl,
        body: delivery.payload,
        trace: delivery.trace,
        secrets: (now) => signingSecrets(delivery, now, secretOf),
      },
    };
  }

  /** The skipped deliveries' leases end as 'skipped': no request is made. */
  const skip = (delivery: ClaimedDelivery): Promise<void> =>
    store.deliveries.skip([delivery], delivery.lease, nowMicros(clock));

  // Stage 4: results that arrive in the same turn are written in one transaction.
  const results = createTurnBatch<AttemptResult>(async (batch) => {
    try {
      await store.deliveries.recordAttempts(batch, nextDispatchState, deps.operationalEvents ?? null);
    } catch (error) {
      // Nothing is lost: the leases run out and the deliveries are sent again.
      deps.onError(error, 'record');
    }
  });

  /**
   * Stage 4: what the attempt means for its delivery and webhook; resolves once it is written, with the time its
   * retry is due (null when there is none).
   */
  async function record(delivery: ClaimedDelivery, made: AttemptMade): Promise<Micros | null> {
    const finishedAt = nowMicros(clock);
    const result = scheduledResult(delivery.id, made, {
      retryDelaysSeconds: deps.retryDelaysSeconds,
      jitter: uniformFraction(deps.random),
      lease: delivery.lease,
      finishedAt,
      lastAttempt: delivery.lastAttempt,
    });
    results.add(result);
    await results.flushed();
    return result.delivery.state === 'pending' ? result.delivery.nextAttemptAt : null;
  }

  return { claim, prepare, skip, record, recorded: () => results.flushed() };
}
