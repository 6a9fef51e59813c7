// The create and edit form of a webhook, and the edit form of an operational endpoint (the same fields but job ids
// and the rate). Validation is the API's: the form sends what was typed and shows the API's field errors next to the
// field each concerns, so the rules and their wording exist once, in the contract.
// (Running the zod schemas here too would add the whole schema library, ~450 kB, to the page.)
import { EVENT_TYPES, OPERATIONAL_EVENT_TYPES } from '@jobhooks/client/contract/closed-lists';
import type { FieldErrors } from '@jobhooks/client/contract/envelope';
import { LIMITS } from '@jobhooks/client/contract/limits';
import type { OperationalEndpoint, OperationalEndpointBody } from '@jobhooks/client/contract/operational';
import type { WebhookDetail } from '@jobhooks/client/contract/webhook';
import { ApiProblem, type WebhookDraft } from './api';
import { h, uniqueId } from './dom';
import { managedEditWarning, managedMarker, managedNameHint, nameToSave, shownName } from './managed-as-code';

const WEBHOOK_FIELDS = [
  'name',
  'client_url',
  'event_types',
  'job_ids',
  'description',
  'max_requests_per_second',
  'active',
] as const;
type Field = (typeof WEBHOOK_FIELDS)[number];

/** "12, 34" → [12, 34]; an entry that is not digits is kept as text, for the API to name the problem. */
export function parseJobIds(text: string): Array<number | string> {
  return text
    .split(/[\s,]+/)
    .filter((entry) => entry !== '')
    .map((entry) => (/^\d{1,16}$/.test(entry) ? Number(entry) : entry));
}

/** "" → null (no limit), "5" → 5; anything else is kept as text, for the API to name the problem. */
export function parseRate(text: string): number | string | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  return /^\d{1,9}$/.test(trimmed) ? Number(trimmed) : trimmed;
}

export interface FormOptions<Existing, Draft> {
  existing?: Existing;
  /** Sends the fields; an ApiProblem it throws is shown on the form. */
  submit(fields: Draft): Promise<void>;
  cancel(): void;
}
export type WebhookFormOptions = FormOptions<WebhookDetail, WebhookDraft>;

/** What an edited thing shows in the form; job ids and the rate only a webhook has. */
type Editable<Type extends string> = Pick<
  WebhookDetail,
  'name' | 'description' | 'client_url' | 'active' | 'archived'
> & {
  event_types: readonly Type[];
  job_ids?: readonly (string | number)[];
  max_requests_per_second?: number | null;
};

/** What differs between the webhook's form and the operational endpoint's. */
interface FormKind<Type extends string> {
  /** "webhook" or "operational endpoint", in the form's words. */
  noun: string;
  eventTypes: readonly Type[];
  /** Checked on a new one. */
  newEventTypes: readonly Type[];
  fields: readonly Field[];
}

interface FieldView {
  container: HTMLElement;
  control: HTMLElement;
  error: HTMLElement;
}

function fieldView(label: string, control: HTMLInputElement | HTMLTextAreaElement, hint?: string): FieldView {
  const error = h('p', { class: 'field-error', id: uniqueId('error'), hidden: true });
  const hintElement = hint ? h('p', { class: 'hint', id: uniqueId('hint') }, hint) : null;
  control.id = uniqueId('field');
  control.setAttribute('aria-describedby', [hintElement?.id, error.id].filter(Boolean).join(' '));
  const container = h('div', { class: 'field' }, h('label', { for: control.id }, label), hintElement, control, error);
  return { container, control, error };
}

function eventTypesView(
  choices: readonly string[],
  selected: readonly string[],
): FieldView & { boxes: HTMLInputElement[] } {
  const error = h('p', { class: 'field-error', id: uniqueId('error'), hidden: true });
  const boxes = choices.map((eventType) =>
    h('input', { type: 'checkbox', name: 'event_types', value: eventType, checked: selected.includes(eventType) }),
  );
  const container = h(
    'fieldset',
    { class: 'field', 'aria-describedby': error.id },
    h('legend', {}, 'Event types'),
    ...boxes.map((box) => h('label', { class: 'choice' }, box, ` ${box.value}`)),
    error,
  );
  return { container, control: boxes[0] ?? container, error, boxes };
}

/** The form's values, for the kind's fields: a webhook takes them all, an operational endpoint leaves two out. */
type Values<Type extends string> = Omit<WebhookDraft, 'event_types'> & { event_types: Type[] };

function endpointForm<Type extends string>(
  kind: FormKind<Type>,
  options: FormOptions<Editable<Type>, Values<Type>>,
): HTMLFormElement {
  const existing = options.existing;
  const fields = kind.fields;
  // A webhook managed as code keeps its marker: the field shows the name without it, and saving puts it back.
  const marker = existing ? managedMarker(existing.name) : null;
  const title = existing ? shownName(existing.name) : '';
  const name = fieldView(
    'Name',
    h('input', { type: 'text', name: 'name', value: title, autocomplete: 'off', required: true }),
    marker === null ? undefined : managedNameHint(marker),
  );
  const clientUrl = fieldView(
    'Endpoint URL',
    h('input', {
      type: 'url',
      name: 'client_url',
      value: existing?.client_url ?? '',
      placeholder: 'https://example.com/hooks',
      required: true,
    }),
    existing?.archived ? `Changing the URL reactivates this archived ${kind.noun}.` : undefined,
  );
  const eventTypes = eventTypesView(kind.eventTypes, existing?.event_types ?? kind.newEventTypes);
  const jobIds = fieldView(
    'Job ids',
    h('input', { type: 'text', name: 'job_ids', value: existing?.job_ids?.join(', ') ?? '', inputmode: 'numeric' }),
    'Comma-separated. Leave empty for all jobs.',
  );
  const description = fieldView(
    'Description',
    h('textarea', { name: 'description', rows: 2 }, existing?.description ?? ''),
  );
  const rate = fieldView(
    'Max requests per second',
    h('input', {
      type: 'text',
      name: 'max_requests_per_second',
      value: existing?.max_requests_per_second?.toString() ?? '',
      inputmode: 'numeric',
      autocomplete: 'off',
    }),
    `Optional, 1 to ${LIMITS.maxRequestsPerSecondMax}, counted over all instances. Leave empty for no limit. ` +
      'Deliveries beyond it wait their turn without using a retry.',
  );
  const activeBox = h('input', { type: 'checkbox', name: 'active', checked: existing ? existing.active : true });
  const activeError = h('p', { class: 'field-error', id: uniqueId('error'), hidden: true });
  const active: FieldView = {
    container: h(
      'div',
      { class: 'field' },
      h('label', { class: 'choice' }, activeBox, ' Active: send events to this endpoint'),
      activeError,
    ),
    control: activeBox,
    error: activeError,
  };
  const views: Record<Field, FieldView> = {
    name,
    client_url: clientUrl,
    event_types: eventTypes,
    job_ids: jobIds,
    description,
    max_requests_per_second: rate,
    active,
  };
  const formError = h('p', { class: 'form-error', role: 'alert', tabindex: -1, hidden: true });
  const saveButton = h(
    'button',
    { type: 'submit', class: 'primary' },
    existing ? 'Save changes' : `Create ${kind.noun}`,
  );

  const form = h(
    'form',
    {
      class: 'webhook-form',
      novalidate: true,
      'aria-label': existing ? `Edit ${kind.noun} ${title}` : `New ${kind.noun}`,
    },
    h('h2', {}, existing ? `Edit ${title}` : `New ${kind.noun}`),
    marker !== null && managedEditWarning(marker),
    formError,
    ...fields.map((field) => views[field].container),
    h(
      'div',
      { class: 'actions' },
      saveButton,
      h('button', { type: 'button', onclick: () => options.cancel() }, 'Cancel'),
    ),
  );

  function showErrors(fieldErrors: FieldErrors, message?: string): void {
    let first: HTMLElement | null = null;
    for (const field of fields) {
      const messages = fieldErrors[field] ?? [];
      const view = views[field];
      view.error.textContent = messages.join(' ');
      view.error.hidden = messages.length === 0;
      const controls = field === 'event_types' ? eventTypes.boxes : [view.control];
      for (const control of controls) control.toggleAttribute('aria-invalid', messages.length > 0);
      if (messages.length > 0 && first === null) first = view.control;
    }
    const elsewhere = Object.entries(fieldErrors).filter(([field]) => !(fields as readonly string[]).includes(field));
    const formMessage = message ?? elsewhere.flatMap(([, messages]) => messages).join(' ');
    formError.textContent = formMessage;
    formError.hidden = formMessage === '';
    (first ?? (formMessage ? formError : null))?.focus();
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const draft: Values<Type> = {
      name: nameToSave((name.control as HTMLInputElement).value, marker),
      client_url: (clientUrl.control as HTMLInputElement).value.trim(),
      event_types: kind.eventTypes.filter((_eventType, index) => eventTypes.boxes[index]?.checked === true),
      job_ids: parseJobIds((jobIds.control as HTMLInputElement).value),
      description: (description.control as HTMLTextAreaElement).value,
      max_requests_per_second: parseRate((rate.control as HTMLInputElement).value),
      active: activeBox.checked,
    };
    showErrors({});
    saveButton.disabled = true;
    options
      .submit(draft)
      .catch((error: unknown) => {
        if (error instanceof ApiProblem) {
          const hasFieldErrors = Object.keys(error.fieldErrors).some((field) =>
            (fields as readonly string[]).includes(field),
          );
          showErrors(error.fieldErrors, hasFieldErrors ? undefined : error.message);
        } else {
          showErrors({}, 'Something went wrong while saving. Try again.');
        }
      })
      .finally(() => {
        saveButton.disabled = false;
      });
  });
  return form;
}

const WEBHOOK: FormKind<(typeof EVENT_TYPES)[number]> = {
  noun: 'webhook',
  eventTypes: EVENT_TYPES,
  newEventTypes: ['job.run.completed'],
  fields: WEBHOOK_FIELDS,
};

const OPERATIONAL: FormKind<(typeof OPERATIONAL_EVENT_TYPES)[number]> = {
  noun: 'operational endpoint',
  eventTypes: OPERATIONAL_EVENT_TYPES,
  newEventTypes: OPERATIONAL_EVENT_TYPES,
  fields: WEBHOOK_FIELDS.filter((field) => field !== 'job_ids' && field !== 'max_requests_per_second'),
};

export function webhookForm(options: WebhookFormOptions): HTMLFormElement {
  return endpointForm(WEBHOOK, options);
}

/** The edit form of an operational endpoint: what it sends is a full replacement, as for a webhook. */
export function operationalEndpointForm(
  options: FormOptions<OperationalEndpoint, OperationalEndpointBody>,
): HTMLFormElement {
  return endpointForm(OPERATIONAL, {
    ...options,
    submit: ({ name, description, client_url, event_types, active }) =>
      options.submit({ name, description, client_url, event_types, active }),
  });
}
