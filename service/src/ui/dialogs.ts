// Modal dialogs on the native <dialog> element: focus is trapped and Escape closes them, for free.
import { h, uniqueId } from './dom';

function modal(label: string, ...content: Node[]): HTMLDialogElement {
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

/** Shows a new webhook's signing secret, the one time the API returns it. */
export function showSecretOnce(webhookName: string, secret: string): Promise<void> {
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
      `Signing secret of ${webhookName}`,
      h(
        'p',
        { class: 'warning-text' },
        'This secret is shown only now and cannot be shown again. Store it where your receiver can read it: it verifies the Authorization header of every delivery.',
      ),
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
