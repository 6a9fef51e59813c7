// `validate FILES`: offline, the files against the file format and the API's rules.
import type { CliIo } from '../io';
import { declarationOrProblems } from './shared';

export async function validateCommand(files: string[], io: CliIo): Promise<number> {
  const declaration = await declarationOrProblems(files, io);
  const count = declaration.webhooks.length;
  const scope = declaration.namespace === null ? '' : ` (namespace ${declaration.namespace})`;
  io.stdout(
    `${count} webhook${count === 1 ? '' : 's'} in ${declaration.files.length} file${declaration.files.length === 1 ? '' : 's'}${scope}: valid.\n`,
  );
  return 0;
}
