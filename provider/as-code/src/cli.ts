// The command line: `jobhooks-as-code validate | plan | apply | import | schema`, its flags, and its exit codes.
import { parseArgs } from 'node:util';
import { CliError, CONNECTION_HELP } from '@jobhooks/client';
import { applyCommand } from './commands/apply';
import { importCommand } from './commands/import';
import { planCommand } from './commands/plan';
import { validateCommand } from './commands/validate';
import { Identifier, webhooksFileJsonSchema } from './declaration';
import type { CliIo } from './io';

export const USAGE = `Usage: jobhooks-as-code <command> [options]

Webhooks declared in YAML files, planned and applied against jobhooks or dbt Cloud, with no state file.

Commands:
  validate FILES...           check the files offline (format, API rules, variables); exit 1 on any problem
  plan FILES...               show what apply would do: create, update, reactivate, delete
      --json                  the plan as one JSON document
      --detailed-exitcode     exit 0 when nothing would change, 2 when something would, 1 on error
  apply FILES...              make the plan's changes, after asking on a terminal
      --auto-approve          do not ask (CI)
      --secrets-out FILE      merge the created webhooks' secrets into FILE (JSON, mode 0600); the secrets of
                              webhooks the apply deletes are dropped from it
      --show-secrets          print each created webhook's secret as soon as it is created (with or without
                              --secrets-out)
  import                      write the account's webhooks as a webhooks file
      --namespace NS          the namespace to write (and whose webhooks are managed)
      --output FILE           a new file to write (standard output otherwise)
      --managed-only          only the webhooks already managed in that namespace
      --link                  mark the unmanaged webhooks written, so the file manages them (asks first)
      --auto-approve          do not ask before --link renames
  schema                      print the JSON Schema of the files

FILES are paths or glob patterns (quote them: 'webhooks/*.yml'); each must match a file.

While a command waits to retry (a rate limit, a server error, a server it cannot reach), it says on stderr what
it waits for and how long; standard output keeps only the command's own output.

Connection (plan, apply, import):
${CONNECTION_HELP}
`;

const CONNECTION_OPTIONS = {
  'host-url': { type: 'string' },
  'account-id': { type: 'string' },
} as const;

/** Runs a command line (without the node and script arguments) and resolves with the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...args] = argv;
  // `jobhooks-as-code plan --help` as well as `jobhooks-as-code --help`.
  if (command !== undefined && (args.includes('--help') || args.includes('-h'))) {
    io.stdout(USAGE);
    return 0;
  }
  try {
    switch (command) {
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.stdout(USAGE);
        return command === undefined ? 1 : 0;
      case '--version':
        io.stdout(`${packageVersion()}\n`);
        return 0;
      case 'validate':
        return await validateCommand(parse(args, {}).positionals, io);
      case 'plan': {
        const { values, positionals } = parse(args, {
          ...CONNECTION_OPTIONS,
          json: { type: 'boolean' },
          'detailed-exitcode': { type: 'boolean' },
        });
        return await planCommand(
          positionals,
          {
            ...connectionFlags(values),
            json: values.json === true,
            detailedExitcode: values['detailed-exitcode'] === true,
          },
          io,
        );
      }
      case 'apply': {
        const { values, positionals } = parse(args, {
          ...CONNECTION_OPTIONS,
          'auto-approve': { type: 'boolean' },
          'secrets-out': { type: 'string' },
          'show-secrets': { type: 'boolean' },
        });
        return await applyCommand(
          positionals,
          {
            ...connectionFlags(values),
            autoApprove: values['auto-approve'] === true,
            ...(typeof values['secrets-out'] === 'string' ? { secretsOut: values['secrets-out'] } : {}),
            showSecrets: values['show-secrets'] === true,
          },
          io,
        );
      }
      case 'import': {
        const { values, positionals } = parse(args, {
          ...CONNECTION_OPTIONS,
          namespace: { type: 'string' },
          output: { type: 'string' },
          'managed-only': { type: 'boolean' },
          link: { type: 'boolean' },
          'auto-approve': { type: 'boolean' },
        });
        if (positionals.length > 0)
          throw new CliError(`import takes no files (it writes one: --output FILE), not "${positionals[0]}".`);
        return await importCommand(
          {
            ...connectionFlags(values),
            ...(typeof values.namespace === 'string' ? { namespace: checkedNamespace(values.namespace) } : {}),
            ...(typeof values.output === 'string' ? { output: values.output } : {}),
            managedOnly: values['managed-only'] === true,
            link: values.link === true,
            autoApprove: values['auto-approve'] === true,
          },
          io,
        );
      }
      case 'schema':
        parse(args, {});
        io.stdout(`${JSON.stringify(webhooksFileJsonSchema(), null, 2)}\n`);
        return 0;
      default:
        throw new CliError(
          `Unknown command "${command}"; the commands are validate, plan, apply, import and schema (see --help).`,
        );
    }
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    io.stderr(`jobhooks-as-code: ${error.message}\n`);
    return error.exitCode;
  }
}

type Options = NonNullable<Parameters<typeof parseArgs>[0]>['options'];

function parse<T extends Options>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    // node's message, e.g. "Unknown option '--jsn'", without its advice about positionals.
    throw new CliError(`${(error as Error).message.split('. ')[0]} (see --help).`);
  }
}

function connectionFlags(values: { 'host-url'?: unknown; 'account-id'?: unknown }) {
  return {
    ...(typeof values['host-url'] === 'string' ? { hostUrl: values['host-url'] } : {}),
    ...(typeof values['account-id'] === 'string' ? { accountId: values['account-id'] } : {}),
  };
}

function checkedNamespace(namespace: string): string {
  const result = Identifier.safeParse(namespace);
  if (!result.success) throw new CliError(`--namespace ${result.error.issues[0]?.message ?? 'is not valid'}.`);
  return namespace;
}

function packageVersion(): string {
  return (require('../package.json') as { version: string }).version;
}
