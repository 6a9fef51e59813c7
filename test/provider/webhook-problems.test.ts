// The IaC tools' check of a declared webhook: the service's create schema, in the words the API itself uses.
import { webhookProblems } from '@jobhooks/client';

test("a mistyped property gets the API's sentence for its field, not zod's wording", () => {
  expect(webhookProblems({ active: 'yes', name: 'Nightly' }, () => true)).toEqual([
    { property: 'active', reason: 'active must be true or false' },
  ]);
});
