// The words of a problem in a file: the contract's own message, except where the contract speaks of a request body.
import type { z } from 'zod';
import { fieldSentence } from '@jobhooks/client/contract';
import { ENDPOINT_FIELDS, WEBHOOK_FIELDS } from './declaration';

/** Per map of the file: what an entry is called, and the fields it may have. */
const ENTRIES: Record<string, { noun: string; article: string; fields: readonly string[] }> = {
  webhooks: { noun: 'webhook', article: 'a', fields: WEBHOOK_FIELDS },
  operational_endpoints: { noun: 'operational endpoint', article: 'an', fields: ENDPOINT_FIELDS },
};

export function messageOf(issue: z.core.$ZodIssue): string {
  const depth = issue.path.length;
  const map = typeof issue.path[0] === 'string' ? ENTRIES[issue.path[0]] : undefined;
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.join(', ');
    if (depth > 0 && map !== undefined)
      return `unknown field ${keys}: ${map.article} ${map.noun} has ${map.fields.join(', ')}`;
    // A misspelt `operational_endpoints` gets the right key, not the list of what most files have.
    if (issue.keys.some((key) => /operational|endpoint/i.test(key)))
      return `unknown key ${keys}: operational endpoints go under "operational_endpoints"`;
    return `unknown key ${keys}: a file has "webhooks", optionally "namespace", and keys of its own starting with "x-"`;
  }
  if (issue.code === 'invalid_key')
    return `the identifier "${String(issue.path[1])}" ${issue.issues[0]?.message ?? 'is not valid'}`;
  if (issue.code === 'invalid_type' && depth === 0)
    return 'the file must be a map with "webhooks" (and, optionally, "namespace")';
  if (issue.code === 'invalid_type' && depth === 1 && map !== undefined)
    return `${String(issue.path[0])} must be a map from identifiers to ${map.noun}s`;
  if (issue.code === 'invalid_type' && depth === 2 && map !== undefined)
    return `${map.article} ${map.noun} must be a map of its fields (name, client_url, event_types, ...)`;
  if (depth === 1 && issue.path[0] === 'namespace') return `namespace ${issue.message}`;
  // A field of an entry: the API's wording for it (webhooks.<id>.<field>, and a list's items under the list).
  if (depth >= 3 && map !== undefined) return fieldSentence(String(issue.path[2]), issue.message);
  return issue.message;
}

/** The path of the node an issue is best shown at: an unknown field at its own line rather than its entry's. */
export function pathOf(issue: z.core.$ZodIssue): PropertyKey[] {
  return issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : [...issue.path];
}
