// Sign-in: paste an API token. It is checked against the API before it is kept (in sessionStorage only).
import type { AccountView } from '@jobhooks/client/contract/account';
import { Api, ApiProblem } from './api';
import { h, show, uniqueId } from './dom';

export interface SignedIn {
  token: string;
  account: AccountView;
}

/** The account a token belongs to; throws the API's problem (401 for a wrong token). */
export async function accountOf(token: string): Promise<AccountView> {
  const [account] = await new Api(token).accounts();
  if (account === undefined) throw new ApiProblem(403, 'This token gives access to no account.');
  return account;
}

export function renderSignIn(main: HTMLElement, signedIn: (session: SignedIn) => void, message?: string): void {
  const tokenId = uniqueId('token');
  const hintId = uniqueId('hint');
  const input = h('input', {
    type: 'password',
    id: tokenId,
    name: 'token',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
    'aria-describedby': hintId,
  });
  const error = h('p', { class: 'form-error', role: 'alert', tabindex: -1, hidden: !message }, message ?? '');
  const button = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const form = h(
    'form',
    { class: 'sign-in', 'aria-labelledby': 'sign-in-title' },
    h('h1', { id: 'sign-in-title' }, 'Sign in to jobhooks'),
    error,
    h('label', { for: tokenId }, 'API token'),
    h(
      'p',
      { class: 'hint', id: hintId },
      'Paste an API token of your account. It is kept in this browser tab only, until you sign out or close the tab.',
    ),
    input,
    h('div', { class: 'actions' }, button),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (token === '') {
      error.textContent = 'Paste an API token to sign in.';
      error.hidden = false;
      input.focus();
      return;
    }
    button.disabled = true;
    accountOf(token)
      .then((account) => signedIn({ token, account }))
      .catch((problem: unknown) => {
        error.textContent =
          problem instanceof ApiProblem && problem.status === 401
            ? 'That token was not accepted. Check that it was copied whole and has not been revoked.'
            : problem instanceof ApiProblem
              ? problem.message
              : 'Signing in failed. Try again.';
        error.hidden = false;
        error.focus();
      })
      .finally(() => {
        button.disabled = false;
      });
  });
  show(main, form);
  input.focus();
}
