// Modal dialogs on the native <dialog> element: focus is trapped and Escape closes them, for free.
import { ApiProblem } from './api';
import { h, uniqueId } from './dom';
import { durationText } from '@jobhooks/client/contract/delivery-rules';
import { LOG_RETENTION_TEXT, overlapSecondsOf, rfc3339OfLocal, SECRET_OVERLAP_HOURS } from './format';

/** Opens a modal dialog titled `label`; it is removed from the page when it closes. */
export function modal(label: string, ...content: Node[]): HTMLDialogElement {
  const titleId = uniqueId('dialog-title');
  const dialog = h('dialog', { 'aria-labelledby': titleId }, h('h2', { id: titleId }, label), ...content);
  dialog.addEventListener('close', () => dialog.remove());
  document.body.appendChild(dialog);
  dialog.showModal();
  return dialog;
}

/** Resolves true when the person confirms; Escape or Cancel resolve false. */
export function confirmAction(title: string, text: string, confirmLabel: string): Promise<boolean> {
  return new Promise((resolve) => {
    const cancel = h('button', { type: 'button', autofocus: true }, 'Cancel');
    const confirm = h('button', { type: 'button', class: 'danger' }, confirmLabel);
    const dialog = modal(title, h('p', {}, text), h('div', { class: 'actions' }, confirm, cancel));
    cancel.addEventListener('click', () => dialog.close('cancel'));
    confirm.addEventListener('click', () => dialog.close('confirm'));
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'confirm'));
  });
}

export interface SecretOnceOptions {
  /** The dialog's title; "Signing secret of NAME" when omitted. */
  title?: string;
  /** Replaces the sentence after "cannot be shown again", which says what the secret verifies. */
  storeHint?: string;
  /** What the new secret means for the receivers, beneath the warning. */
  explanation?: Node[];
}

/** Shows a signing secret the one time the API returns it: after create, and after a rotation. */
export function showSecretOnce(webhookName: string, secret: string, options: SecretOnceOptions = {}): Promise<void> {
  return new Promise((resolve) => {
    const field = h('input', {
      type: 'text',
      readonly: true,
      value: secret,
      id: uniqueId('secret'),
      class: 'secret',
      spellcheck: 'false',
    });
    const copyStatus = h('p', { role: 'status', class: 'hint' });
    const copy = h('button', { type: 'button' }, 'Copy secret');
    const done = h('button', { type: 'button', class: 'primary' }, 'I have stored the secret');
    const dialog = modal(
      options.title ?? `Signing secret of ${webhookName}`,
      h(
        'p',
        { class: 'warning-text' },
        'This secret is shown only now and cannot be shown again. ',
        options.storeHint ??
          'Store it where your receiver can read it: it verifies the Authorization header of every delivery.',
      ),
      ...(options.explanation ?? []),
      h('label', { for: field.id }, 'Signing secret'),
      field,
      copyStatus,
      h('div', { class: 'actions' }, copy, done),
    );
    copy.addEventListener('click', () => {
      field.select();
      // The Clipboard API needs a secure context (https or localhost); elsewhere the text is left selected.
      const written = navigator.clipboard?.writeText(secret) ?? Promise.reject(new Error('no clipboard'));
      written.then(
        () => (copyStatus.textContent = 'Copied to the clipboard.'),
        () => (copyStatus.textContent = 'Copying is not allowed here: the secret is selected, press Ctrl+C or Cmd+C.'),
      );
    });
    done.addEventListener('click', () => dialog.close());
    dialog.addEventListener('close', () => resolve());
    field.select();
  });
}

/**
 * Asks whether to rotate a webhook's secret and for how long the old one keeps signing, in hours, then rotates
 * with `rotate`. The API checks the overlap (the contract's RotateSecretBody): its field error is shown at the
 * field and the dialog stays open. Resolves with the rotation, or null when the person cancels; rejects with any
 * other failure. The dialog stays open while the rotation is under way, and should it close anyway the rotation's
 * answer still resolves: a new secret, answered once, is never dropped.
 */
export function askToRotate<T>(
  webhookName: string,
  rotate: (overlapSeconds: number | string) => Promise<T>,
): Promise<T | null> {
  return new Promise((resolve, reject) => {
    const hint = h(
      'p',
      { class: 'hint', id: uniqueId('hint') },
      `How long the old secret keeps signing: 0 to ${SECRET_OVERLAP_HOURS.max} hours ` +
        `(${durationText(SECRET_OVERLAP_HOURS.max * 3600)}). With 0 it stops at once, and ` +
        'receivers that do not have the new secret yet reject every delivery.',
    );
    const error = h('p', { class: 'field-error', id: uniqueId('error'), hidden: true });
    const hours = h('input', {
      type: 'number',
      id: uniqueId('field'),
      name: 'overlap_hours',
      value: String(SECRET_OVERLAP_HOURS.default),
      min: 0,
      max: SECRET_OVERLAP_HOURS.max,
      step: 'any',
      inputmode: 'decimal',
      'aria-describedby': `${hint.id} ${error.id}`,
    });
    const cancel = h('button', { type: 'button', autofocus: true }, 'Cancel');
    const confirm = h('button', { type: 'submit', class: 'primary' }, 'Rotate secret');
    const form = h(
      'form',
      { class: 'in-dialog', novalidate: true },
      h('div', { class: 'field' }, h('label', { for: hours.id }, 'Overlap in hours'), hint, hours, error),
      h('div', { class: 'actions' }, confirm, cancel),
    );
    const dialog = modal(
      `Rotate the secret of ${webhookName}?`,
      h(
        'p',
        {},
        'A new signing secret replaces the current one. For the overlap you choose, the old secret keeps signing ' +
          'beside the new one, so receivers keep verifying every delivery while you give them the new secret.',
      ),
      form,
    );
    let pending = false;
    // Escape must not hide the dialog while the new secret is on its way.
    dialog.addEventListener('cancel', (event) => {
      if (pending) event.preventDefault();
    });
    dialog.addEventListener('close', () => {
      if (!pending) resolve(null);
    });
    cancel.addEventListener('click', () => dialog.close('cancel'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      pending = true;
      confirm.disabled = true;
      cancel.disabled = true;
      rotate(overlapSecondsOf(hours.value)).then(
        (rotated) => {
          resolve(rotated);
          dialog.close('rotated');
        },
        (problem: unknown) => {
          pending = false;
          confirm.disabled = false;
          cancel.disabled = false;
          const messages = problem instanceof ApiProblem ? (problem.fieldErrors['overlap_seconds'] ?? []) : [];
          if (messages.length === 0 || !dialog.open) {
            reject(problem);
            dialog.close();
            return;
          }
          error.textContent = messages.join(' ');
          error.hidden = false;
          hours.setAttribute('aria-invalid', 'true');
          hours.focus();
        },
      );
    });
  });
}

/**
 * Asks for the window of a recovery, since (required) and until (optional) in the viewer's local time, then recovers
 * with `recover` (times as RFC 3339 with the browser's offset). The API checks the times: a field error is shown at
 * its field, and a refusal such as the 409 of an archived or inactive webhook above the buttons; the dialog stays
 * open for either. Resolves with the recovery, or null when the person cancels; rejects with any other failure.
 */
export function askToRecover<T>(
  webhookName: string,
  recover: (since: string | undefined, until: string | undefined) => Promise<T>,
): Promise<T | null> {
  return new Promise((resolve, reject) => {
    const timeField = (name: 'since' | 'until', label: string, hintText: string) => {
      const hint = h('p', { class: 'hint', id: uniqueId('hint') }, hintText);
      const error = h('p', { class: 'field-error', id: uniqueId('error'), hidden: true });
      const input = h('input', {
        type: 'datetime-local',
        id: uniqueId('field'),
        name,
        step: 1,
        'aria-describedby': `${hint.id} ${error.id}`,
        ...(name === 'since' ? { required: true } : {}),
      });
      const field = h('div', { class: 'field' }, h('label', { for: input.id }, label), hint, input, error);
      return { input, error, field };
    };
    const since = timeField('since', 'Failed since', 'Deliveries created at or after this time, in your time zone.');
    const until = timeField('until', 'Until (optional)', 'Deliveries created before this time; empty means now.');
    const formError = h('p', { class: 'form-error', role: 'alert', hidden: true });
    const cancel = h('button', { type: 'button' }, 'Cancel');
    const confirm = h('button', { type: 'submit', class: 'primary' }, 'Recover deliveries');
    const form = h(
      'form',
      { class: 'in-dialog', novalidate: true },
      since.field,
      until.field,
      formError,
      h('div', { class: 'actions' }, confirm, cancel),
    );
    const dialog = modal(
      `Recover failed deliveries of ${webhookName}`,
      h(
        'p',
        {},
        'Every failed delivery created in this window is sent once more, oldest first, within the usual sending ' +
          `limits. One that fails again stays failed. Deliveries older than ${LOG_RETENTION_TEXT} are gone.`,
      ),
      form,
    );
    let pending = false;
    dialog.addEventListener('cancel', (event) => {
      if (pending) event.preventDefault();
    });
    dialog.addEventListener('close', () => {
      if (!pending) resolve(null);
    });
    cancel.addEventListener('click', () => dialog.close('cancel'));
    since.input.focus();
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      pending = true;
      confirm.disabled = true;
      cancel.disabled = true;
      for (const { input, error } of [since, until]) {
        input.removeAttribute('aria-invalid');
        error.hidden = true;
      }
      formError.hidden = true;
      recover(rfc3339OfLocal(since.input.value), rfc3339OfLocal(until.input.value)).then(
        (recovered) => {
          resolve(recovered);
          dialog.close('recovered');
        },
        (problem: unknown) => {
          pending = false;
          confirm.disabled = false;
          cancel.disabled = false;
          if (!(problem instanceof ApiProblem) || (problem.status !== 400 && problem.status !== 409) || !dialog.open) {
            reject(problem);
            dialog.close();
            return;
          }
          let first: HTMLInputElement | null = null;
          for (const [name, { input, error }] of [
            ['since', since],
            ['until', until],
          ] as const) {
            const messages = problem.fieldErrors[name] ?? [];
            if (messages.length === 0) continue;
            error.textContent = messages.join(' ');
            error.hidden = false;
            input.setAttribute('aria-invalid', 'true');
            first ??= input;
          }
          if (first) return first.focus();
          formError.textContent = problem.message;
          formError.hidden = false;
          confirm.focus();
        },
      );
    });
  });
}
