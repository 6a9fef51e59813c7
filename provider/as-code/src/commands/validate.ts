// `validate FILES`: offline, the files against the file format and the API's rules.
import type { CliIo } from '../io';
import { counted } from '../words';
import { declarationOrProblems } from './shared';

export async function validateCommand(files: string[], io: CliIo): Promise<number> {
  const declaration = await declarationOrProblems(files, io);
  const endpoints = declaration.operationalEndpoints?.length ?? 0;
  // Each kind the files manage; operational endpoints beside webhooks only when there are some.
  const { webhooks } = declaration;
  const kinds = [
    webhooks === undefined ? null : counted(webhooks.length, 'webhook'),
    endpoints > 0 || webhooks === undefined ? counted(endpoints, 'operational endpoint') : null,
  ];
  const declared = kinds.filter((kind) => kind !== null).join(' and ');
  const scope = declaration.namespace === null ? '' : ` (namespace ${declaration.namespace})`;
  io.stdout(`${declared} in ${counted(declaration.files.length, 'file')}${scope}: valid.\n`);
  return 0;
}
