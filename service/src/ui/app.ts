// The web UI's entry: the page shell (header, messages), sign-in and sign-out, and the routes.
// First: the UI's policy allows no eval, and the contract's schemas must not even try it.
import '@jobhooks/client/contract/without-eval';
import { renderOperationalDetails, renderOperationalForm } from './operational-details';
import { renderOperationalPage } from './operational-view';
import { WRITE_PERMISSION_SETS } from '@jobhooks/client/contract/closed-lists';
import { Api, ApiProblem, type WebhookDraft } from './api';
import type { UiContext } from './context';
import { showSecretOnce } from './dialogs';
import { h, show } from './dom';
import { forgetSession, saveToken, savedToken } from './session';
import { accountOf, renderSignIn, type SignedIn } from './sign-in';
import { renderWebhookDetails } from './webhook-details';
import { webhookForm } from './webhook-form';
import { renderWebhooksPage } from './webhooks-view';
import { renderOverview } from './overview';
import { shownName } from './managed-as-code';

const main = document.getElementById('main') as HTMLElement;
const accountSlot = document.getElementById('account') as HTMLElement;
const alerts = document.getElementById('alerts') as HTMLElement;
const notices = document.getElementById('notices') as HTMLElement;

function showAlert(message: string): void {
  const close = h('button', { type: 'button', class: 'dismiss', 'aria-label': 'Close this message' }, 'Close');
  const alert = h('div', { class: 'alert', role: 'alert' }, h('p', {}, message), close);
  close.addEventListener('click', () => alert.remove());
  show(alerts, alert);
}

function signOut(message?: string): void {
  current = null;
  forgetSession();
  show(accountSlot);
  show(alerts);
  history.replaceState(null, '', '#/');
  renderSignIn(main, startSession, message);
}

function contextFor(session: SignedIn): UiContext {
  const ctx: UiContext = {
    api: new Api(session.token).forAccount(session.account.id),
    account: session.account,
    canWrite:
      session.account.permission_set !== undefined && WRITE_PERMISSION_SETS.includes(session.account.permission_set),
    main,
    notify: (message) => {
      notices.textContent = '';
      // A fresh text node, so screen readers announce a repeated message too.
      requestAnimationFrame(() => (notices.textContent = message));
    },
    fail: (error) => {
      if (error instanceof ApiProblem && error.status === 401)
        return signOut('Your session has ended: the token is no longer accepted. Sign in again.');
      showAlert(error instanceof ApiProblem ? error.message : 'Something went wrong. Reload the page and try again.');
    },
    go: (route) => {
      if (location.hash === route) void renderRoute(ctx);
      else location.hash = route;
    },
  };
  return ctx;
}

function renderForm(ctx: UiContext, existingId?: string): void {
  if (!ctx.canWrite) {
    show(
      ctx.main,
      h(
        'p',
        {},
        `The permission set "${ctx.account.permission_set ?? 'unknown'}" can view webhooks but not change them.`,
      ),
      h('a', { href: '#/webhooks' }, '← All webhooks'),
    );
    return;
  }
  const draw = (existing?: Awaited<ReturnType<Api['webhook']>>) =>
    show(
      ctx.main,
      webhookForm({
        ...(existing ? { existing } : {}),
        cancel: () => ctx.go(existing ? `#/webhooks/${encodeURIComponent(existing.id)}` : '#/webhooks'),
        submit: async (fields: WebhookDraft) => {
          if (existing) {
            await ctx.api.update(existing.id, fields);
            ctx.notify(`${shownName(fields.name)} is saved.`);
            ctx.go(`#/webhooks/${encodeURIComponent(existing.id)}`);
            return;
          }
          const created = await ctx.api.create(fields);
          await showSecretOnce(shownName(created.name), created.hmac_secret);
          ctx.notify(`${shownName(created.name)} is created.`);
          ctx.go(`#/webhooks/${encodeURIComponent(created.id)}`);
        },
      }),
    );
  if (existingId === undefined) return draw();
  ctx.api.webhook(existingId).then(draw, (error: unknown) => ctx.fail(error));
}

async function renderRoute(base: UiContext): Promise<void> {
  show(alerts);
  // Each route draws into a container of its own: a view still loading when the user moves on (the overview's
  // statistics, say) finishes into a container that is no longer on the page, not over the newer view.
  const view = h('div', { class: 'view' });
  show(base.main, view);
  const ctx: UiContext = { ...base, main: view };
  const route = location.hash.replace(/^#/, '') || '/';
  // The list keeps its view in a query after the path (#/webhooks?state=failing).
  const path = route.split('?')[0] ?? '/';
  const edit = /^\/webhooks\/([^/]+)\/edit$/.exec(path);
  const detail = /^\/webhooks\/([^/]+)$/.exec(path);
  const operationalEdit = /^\/operational\/([^/]+)\/edit$/.exec(path);
  const operational = /^\/operational\/([^/]+)$/.exec(path);
  if (path === '/new') renderForm(ctx);
  else if (edit?.[1]) renderForm(ctx, decodeURIComponent(edit[1]));
  else if (detail?.[1]) await renderWebhookDetails(ctx, decodeURIComponent(detail[1]));
  else if (path === '/webhooks') await renderWebhooksPage(ctx);
  else if (path === '/operational') await renderOperationalPage(ctx);
  else if (operationalEdit?.[1]) await renderOperationalForm(ctx, decodeURIComponent(operationalEdit[1]));
  else if (operational?.[1]) await renderOperationalDetails(ctx, decodeURIComponent(operational[1]));
  else await renderOverview(ctx);
  if (!view.isConnected) return;
  // Moving between views moves focus to the new view's heading, as a page load would.
  const heading = view.querySelector<HTMLElement>('h1, h2');
  if (heading && !view.contains(document.activeElement)) {
    heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
  }
}

let current: UiContext | null = null;
window.addEventListener('hashchange', () => {
  if (current) void renderRoute(current);
});

function startSession(session: SignedIn): void {
  saveToken(session.token);
  current = contextFor(session);
  show(
    accountSlot,
    h(
      'span',
      { class: 'account-name' },
      `${session.account.name} · ${session.account.permission_set ?? 'unknown permissions'}${current.canWrite ? '' : ' (read only)'}`,
    ),
    h('button', { type: 'button', onclick: () => signOut() }, 'Sign out'),
  );
  void renderRoute(current);
}

const token = savedToken();
if (token === null) {
  renderSignIn(main, startSession);
} else {
  accountOf(token).then(
    (account) => startSession({ token, account }),
    (error: unknown) =>
      error instanceof ApiProblem && error.status === 401
        ? signOut('Your session has ended: the token is no longer accepted. Sign in again.')
        : renderSignIn(
            main,
            startSession,
            error instanceof ApiProblem ? error.message : 'The service could not be reached.',
          ),
  );
}
