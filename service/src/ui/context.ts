// What every view is given: the signed-in API client, what the token may do, and the page's shared regions.
import type { AccountView } from '@jobhooks/client/contract/account';
import type { Api } from './api';

export interface UiContext {
  api: Api;
  account: AccountView;
  /** The token holds a permission set that may change webhooks; without it no write control is shown. */
  canWrite: boolean;
  /** Where the current view draws. */
  main: HTMLElement;
  /** A polite announcement, e.g. "Webhook saved." */
  notify(message: string): void;
  /** Shows a failure as a message (a 401 signs out); never throws. */
  fail(error: unknown): void;
  /** Moves to a route such as "#/webhooks/ID". */
  go(route: string): void;
}
