// The words of a problem in a file: the contract's own message, except where the contract speaks of a request body.
import type { z } from 'zod';
import { WEBHOOK_FIELDS } from './declaration';

export function messageOf(issue: z.core.$ZodIssue): string {
  const depth = issue.path.length;
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.join(', ');
    return depth === 0
      ? `unknown key ${keys}: a file has "webhooks", optionally "namespace", and keys of its own starting with "x-"`
      : `unknown field ${keys}: a webhook has ${WEBHOOK_FIELDS.join(', ')}`;
  }
  if (issue.code === 'invalid_key')
    return `the identifier "${String(issue.path[1])}" ${issue.issues[0]?.message ?? 'is not valid'}`;
  if (issue.code === 'invalid_type' && depth === 0)
    return 'the file must be a map with "webhooks" (and, optionally, "namespace")';
  if (issue.code === 'invalid_type' && depth === 1 && issue.path[0] === 'webhooks')
    return 'webhooks must be a map from identifiers to webhooks';
  if (issue.code === 'invalid_type' && depth === 2)
    return 'a webhook must be a map of its fields (name, client_url, event_types, ...)';
  if (depth === 1 && issue.path[0] === 'namespace') return `namespace ${issue.message}`;
  return issue.message;
}

/** The path of the node an issue is best shown at: an unknown field at its own line rather than its entry's. */
export function pathOf(issue: z.core.$ZodIssue): PropertyKey[] {
  return issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : [...issue.path];
}
