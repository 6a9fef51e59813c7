// A fact about a webhook that makes an operational event (docs/operational-webhooks.md): decided by pure rules
// (store/results-plan.ts for deliveries, domain/endpoint-health.ts for the circuit), written as events by the store.
import type { DeliveredEventType } from '@jobhooks/client/contract';
import type { Micros } from '../core/time';

/** Never about an operational endpoint: the store writes no event about one. */
export type OperationalFact =
  | { type: 'webhook.archived'; webhookId: string; at: Micros; reason: string }
  | { type: 'webhook.failing'; webhookId: string; at: Micros; thresholdPercent: number; consecutiveFailures: number }
  | { type: 'webhook.circuit_opened'; webhookId: string; at: Micros; sickInARow: number; openUntil: Micros }
  | { type: 'webhook.recovered'; webhookId: string; at: Micros }
  | {
      type: 'delivery.exhausted';
      webhookId: string;
      at: Micros;
      deliveryId: string;
      eventId: string;
      eventType: DeliveredEventType;
      attempts: number;
    };
