// `plan FILES`: what apply would do, for people or (--json) for automation; --detailed-exitcode tells CI whether
// anything would change.
import type { ConnectionFlags } from '../connection';
import type { CliIo } from '../io';
import { planJson, planText } from '../plan-output';
import { connect, declarationOrProblems, planFor } from './shared';

export interface PlanFlags extends ConnectionFlags {
  json: boolean;
  detailedExitcode: boolean;
}

/** Exit codes of --detailed-exitcode, as Terraform's: 0 nothing to do, 2 changes pending (1 is an error). */
export const CHANGES_PENDING = 2;

export async function planCommand(files: string[], flags: PlanFlags, io: CliIo): Promise<number> {
  const declaration = await declarationOrProblems(files, io);
  const connected = connect(flags, io);
  const plan = await planFor(declaration, connected);
  const target = { hostUrl: connected.connection.hostUrl, accountId: connected.connection.accountId };
  io.stdout(flags.json ? planJson(plan, target) : planText(plan, target));
  return flags.detailedExitcode && plan.changes.length > 0 ? CHANGES_PENDING : 0;
}
