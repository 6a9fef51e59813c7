// The marker of a webhook managed as code: jobhooks-as-code links an entry of its files to a webhook on the server
// by ending the webhook's name with ` [[identifier]]`, or ` [[namespace/identifier]]` when the files set a
// namespace. It is part of the name the server keeps and receivers get (`webhookName`). Written and read here
// only, with no zod, so the web UI (which shows the marker as a badge) and the tool read it the same way.
import { LIMITS } from './limits';

/** An identifier or a namespace, as a regular expression source: what may stand between `[[` and `]]`. */
export const MARKER_IDENTIFIER = '[A-Za-z0-9][A-Za-z0-9_.-]{0,63}';
export const MARKER_IDENTIFIER_RULE =
  'letters, digits, "_", "." and "-", starting with a letter or digit, at most 64 characters';

export interface Marker {
  namespace: string | null;
  identifier: string;
}

/** `namespace/identifier`, or the identifier alone: how plans, the secrets file and the UI name a webhook. */
export function markerKey(marker: Marker): string {
  return marker.namespace === null ? marker.identifier : `${marker.namespace}/${marker.identifier}`;
}

/** The name the server holds for a webhook declared as `name` under `marker`. */
export function markedName(name: string, marker: Marker): string {
  return `${name} [[${markerKey(marker)}]]`;
}

// A name whose brackets hold anything else than identifiers is no marker: its webhook is not managed as code.
const MARKED = new RegExp(`^(.*) \\[\\[(?:(${MARKER_IDENTIFIER})/)?(${MARKER_IDENTIFIER})\\]\\]$`, 's');

/** The declared name and the marker of a server-side name, or null for a webhook not managed as code. */
export function readMarker(serverName: string): { name: string; marker: Marker } | null {
  const match = MARKED.exec(serverName);
  if (match === null) return null;
  return { name: match[1]!, marker: { namespace: match[2] ?? null, identifier: match[3]! } };
}

/** How long a declared name may be, so that it fits the API's limit with its marker. */
export function roomForName(marker: Marker): number {
  return LIMITS.nameMaxChars - markedName('', marker).length;
}
