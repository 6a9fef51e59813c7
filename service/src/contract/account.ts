// Accounts as the v2 accounts endpoint returns them (the Terraform provider's start-up check reads `id`).
import { z } from 'zod';
import { Plan } from './vocabulary';

export const AccountView = z.object({
  id: z.number().int(),
  name: z.string(),
  plan: Plan,
  identifier: z.string(),
});
export type AccountView = z.infer<typeof AccountView>;
