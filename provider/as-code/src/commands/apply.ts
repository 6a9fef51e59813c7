// `apply FILES`: the plan, made, after a "yes" or with --auto-approve; created webhooks' secrets go to
// --secrets-out or, with --show-secrets, to the terminal, and nowhere else.
import { resolve } from 'node:path';
import { applyChanges, ChangeFailed } from '../apply';
import { CliError } from '@jobhooks/client';
import { type ConnectionFlags, describeApiFailure } from '../connection';
import type { CliIo } from '../io';
import { countByAction } from '../plan';
import { planText } from '../plan-output';
import { type SecretSink, secretsFile, shownSecrets } from '../secrets';
import { counted } from '../words';
import { approved, connect, declarationOrProblems, planFor } from './shared';

export interface ApplyFlags extends ConnectionFlags {
  autoApprove: boolean;
  secretsOut?: string;
  showSecrets: boolean;
}

export async function applyCommand(files: string[], flags: ApplyFlags, io: CliIo): Promise<number> {
  const declaration = await declarationOrProblems(files, io);
  const connected = connect(flags, io);
  const plan = await planFor(declaration, connected);
  io.stdout(planText(plan, { hostUrl: connected.connection.hostUrl, accountId: connected.connection.accountId }));
  if (plan.changes.length === 0) return 0;

  const { create: creates, delete: deletes } = countByAction(plan);
  const endpointCreates = plan.changes.filter((c) => c.action === 'create' && c.kind === 'operational_endpoint').length;
  const sinks = secretSinks(flags, io);
  if (creates > 0 && sinks.length === 0)
    throw new CliError(
      `Nothing was changed: apply would create ${createdText(creates - endpointCreates, endpointCreates)}, whose secret${creates === 1 ? ' is' : 's are'} shown only once; pass --secrets-out FILE (or --show-secrets) to keep ${creates === 1 ? 'it' : 'them'}.`,
    );
  // Before asking: a secrets file that cannot be written is known before anyone says yes.
  if (creates > 0 || deletes > 0) for (const sink of sinks) sink.prepare();
  const question = plan.changes.length === 1 ? 'Make this change?' : `Make these ${plan.changes.length} changes?`;
  if (!(await approved(flags.autoApprove, question, io))) throw new CliError('Apply cancelled; nothing was changed.');

  try {
    await applyChanges(connected.api, plan.changes, {
      secretCreated: (key, secret) => sinks.forEach((sink) => sink.record(key, secret)),
      webhookRemoved: (key) => sinks.forEach((sink) => sink.forget(key)),
      changed: (line) => io.stdout(`${line}\n`),
    });
  } catch (error) {
    if (!(error instanceof ChangeFailed)) throw error;
    const reason = describeApiFailure(error.cause, connected.connection);
    throw new CliError(
      `${error.message}: ${reason} ${error.made} of ${counted(plan.changes.length, 'change')} made; run plan to see what remains.`,
    );
  }
  if (flags.secretsOut !== undefined && creates > 0)
    io.stdout(`The secrets of the created webhooks are in ${flags.secretsOut}.\n`);
  io.stdout(`Apply complete: ${counted(plan.changes.length, 'change')}.\n`);
  return 0;
}

/** "2 webhooks", "1 operational endpoint", or both joined by "and". */
function createdText(webhooks: number, endpoints: number): string {
  const parts = [
    ...(webhooks > 0 ? [counted(webhooks, 'webhook')] : []),
    ...(endpoints > 0 ? [counted(endpoints, 'operational endpoint')] : []),
  ];
  return parts.join(' and ');
}

function secretSinks(flags: ApplyFlags, io: CliIo): SecretSink[] {
  const sinks: SecretSink[] = [];
  // The terminal first: with both, a secret the file fails to take is still shown.
  if (flags.showSecrets) sinks.push(shownSecrets((text) => io.stdout(text)));
  if (flags.secretsOut === '') throw new CliError('--secrets-out needs a file name.');
  if (flags.secretsOut !== undefined) sinks.push(secretsFile(resolve(io.cwd, flags.secretsOut)));
  return sinks;
}
