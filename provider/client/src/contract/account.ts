// Accounts as the v2 accounts endpoint returns them (the Terraform provider's start-up check reads `id`).
import { z } from 'zod';
import { PermissionSet, Plan } from './vocabulary';

export const AccountView = z
  .object({
    id: z.number().int(),
    name: z.string(),
    plan: Plan,
    identifier: z.string(),
    /**
     * The token's permission set on this account: the web UI hides write controls the token cannot use.
     * Optional for clients: dbt Cloud's own accounts endpoint, which the same client may call, lacks it.
     */
    permission_set: PermissionSet.optional(),
  })
  .meta({ id: 'AccountView', description: "An account the token can see, with the token's permission set on it." });
export type AccountView = z.infer<typeof AccountView>;
