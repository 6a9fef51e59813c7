// The link between an entry of the files and a webhook on the server, with no state file: the webhook's name ends
// with ` [[identifier]]`, or ` [[namespace/identifier]]` when the files set a namespace.
import { LIMITS } from '@jobhooks/client/contract';
import { IDENTIFIER } from './declaration';

export interface Marker {
  namespace: string | null;
  identifier: string;
}

/** `namespace/identifier`, or the identifier alone: how plans and the secrets file name a webhook. */
export function markerKey(marker: Marker): string {
  return marker.namespace === null ? marker.identifier : `${marker.namespace}/${marker.identifier}`;
}

/** The name the server holds for a declared webhook. */
export function markedName(name: string, marker: Marker): string {
  return `${name} [[${markerKey(marker)}]]`;
}

// Namespace and identifier follow the files' rule: a name whose brackets hold anything else is no marker, and its
// webhook is left alone.
const MARKED = new RegExp(`^(.*) \\[\\[(?:(${IDENTIFIER})/)?(${IDENTIFIER})\\]\\]$`, 's');

/** The declared name and the marker of a server-side name, or null for a webhook no file manages. */
export function readMarker(serverName: string): { name: string; marker: Marker } | null {
  const match = MARKED.exec(serverName);
  if (match === null) return null;
  return { name: match[1]!, marker: { namespace: match[2] ?? null, identifier: match[3]! } };
}

/** How long a declared name may be, so that it fits the API's limit with its marker. */
export function roomForName(marker: Marker): number {
  return LIMITS.nameMaxChars - markedName('', marker).length;
}
