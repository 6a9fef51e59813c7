// One wording for a field's problem wherever it is shown: the API's error envelope, the Terraform, CDKTF and
// Pulumi diagnostics, and the webhooks-as-code CLI. The contract's own sentences name their field already; zod's
// generic one for a missing or mistyped value ("Invalid input: expected string, received undefined") does not.

/** zod's names for the types it expects, in the words the API's own sentences use. */
const TYPE_WORDS: Record<string, string> = {
  int: 'a whole number',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  record: 'an object',
};

/**
 * `message` about `field` as one sentence that names the field. `inQuery`: the field is a query parameter, which
 * arrives as a list where a string belongs when it is given twice (`?limit=1&limit=2`).
 */
export function fieldSentence(field: string, message: string, inQuery = false): string {
  const wrongType = /^Invalid input: expected (\w+), received (\w+)$/.exec(message);
  if (wrongType === null) return message;
  const [, expected = '', received] = wrongType;
  if (received === 'undefined') return `${field} is required`;
  if (inQuery && expected === 'string' && received === 'array') return `${field} is given more than once`;
  return `${field} must be ${TYPE_WORDS[expected] ?? `of type ${expected}`}`;
}
