// Webhooks managed as code (jobhooks-as-code): their name ends with a [[namespace/identifier]] marker that links
// them to an entry of the tool's files. The UI shows the name without it, a badge naming the entry, and, before
// an edit, that the tool's next apply puts back what its files declare. The marker is read by the contract only.
import { type Marker, markedName, markerKey, readMarker } from '@jobhooks/client/contract/managed-marker';
import { h } from './dom';

/** The name as a person reads it: without the marker of a webhook managed as code. */
export function shownName(name: string): string {
  return readMarker(name)?.name ?? name;
}

/** The marker of a webhook managed as code, or null. */
export function managedMarker(name: string): Marker | null {
  return readMarker(name)?.marker ?? null;
}

/** Beside the status: which entry of which files manages the webhook. */
export function managedBadge(name: string): HTMLElement | null {
  const marker = managedMarker(name);
  if (marker === null) return null;
  const entry = markerKey(marker);
  return h(
    'span',
    {
      class: 'badge managed neutral',
      title: `Managed as code by jobhooks-as-code: ${marker.namespace === null ? 'no namespace' : `namespace ${marker.namespace}`}, identifier ${marker.identifier}`,
    },
    `Managed as code: ${entry}`,
  );
}

/** Atop the edit form of a managed webhook, before anything is changed. */
export function managedEditWarning(marker: Marker): HTMLElement {
  return h(
    'p',
    { class: 'banner warning managed-warning', role: 'note' },
    h('strong', {}, `Managed as code (${markerKey(marker)}). `),
    'jobhooks-as-code manages this webhook: its next apply puts back what its files declare and undoes changes made here. Change the files instead, unless this is a stopgap.',
  );
}

/** The hint under the name field of a managed webhook: the marker stays, and receivers see it. */
export function managedNameHint(marker: Marker): string {
  return `Saved with its marker, as "${markedName('…', marker)}": the marker links the webhook to its entry in the files, and receivers get it as part of the name.`;
}

/**
 * The name to save: the typed name with the marker it had, so an edit here does not unlink the webhook. An empty
 * name stays empty, for the API to refuse as such.
 */
export function nameToSave(typed: string, marker: Marker | null): string {
  return marker === null || typed.trim() === '' ? typed : markedName(typed, marker);
}
