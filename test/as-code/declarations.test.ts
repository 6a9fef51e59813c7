// Reading webhooks files: YAML with anchors and merge keys, `${VAR}` from the environment, the API's rules, the
// rules across files, and every problem with its file, line and identifier.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { parse, Scalar } from 'yaml';
import { webhooksFileJsonSchema } from '../../provider/as-code/src/declaration';
import { loadDeclarations } from '../../provider/as-code/src/load-declarations';
import { formatProblem } from '../../provider/as-code/src/problem';
import { substituteVariables } from '../../provider/as-code/src/variables';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'jobhooks-declarations-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (name: string, text: string) => writeFileSync(join(dir, name), text);
const load = (patterns: string[], env: NodeJS.ProcessEnv = {}) => loadDeclarations(patterns, dir, env);
const problemsOf = async (patterns: string[], env: NodeJS.ProcessEnv = {}) =>
  (await load(patterns, env)).problems.map(formatProblem);

test('anchors, merge keys and x- keys work, variables are replaced, and the defaults are applied', async () => {
  write(
    'webhooks.yml',
    [
      'namespace: analytics',
      'x-errors: &errors',
      '  event_types: [job.run.errored]',
      '  description: Errors only',
      'webhooks:',
      '  slack:',
      '    <<: *errors',
      '    name: Slack ${TEAM}',
      '    client_url: ${BRIDGE}/slack',
      '    job_ids:',
      '      - ${NIGHTLY_JOB_ID}',
      '      - 7',
      '    active: ${ALERTS_ON}',
      '  pager:',
      '    <<: *errors',
      '    name: "${NIGHTLY_JOB_ID}"',
      '    client_url: https://pager.example.com/a?b=$${literal}',
      '',
    ].join('\n'),
  );
  const env = { TEAM: 'data', BRIDGE: 'https://bridge.example.com', NIGHTLY_JOB_ID: '123', ALERTS_ON: 'false' };
  const { declaration, problems } = await load(['webhooks.yml'], env);
  expect(problems).toEqual([]);
  expect(declaration).toEqual({
    namespace: 'analytics',
    files: ['webhooks.yml'],
    webhooks: [
      {
        identifier: 'slack',
        file: 'webhooks.yml',
        line: 6,
        values: {
          name: 'Slack data',
          description: 'Errors only',
          client_url: 'https://bridge.example.com/slack',
          event_types: ['job.run.errored'],
          job_ids: [123, 7],
          active: false,
          max_requests_per_second: null,
        },
      },
      {
        identifier: 'pager',
        file: 'webhooks.yml',
        line: 14,
        // A quoted placeholder stays text; `$${` is a literal `${`; omitted fields take the API's defaults.
        values: {
          name: '123',
          description: 'Errors only',
          client_url: 'https://pager.example.com/a?b=${literal}',
          event_types: ['job.run.errored'],
          job_ids: [],
          active: true,
          max_requests_per_second: null,
        },
      },
    ],
  });
});

test('every problem of a file is reported with its file, line and identifier, in the API words', async () => {
  write(
    'bad.yml',
    [
      'webhooks:', //                                         1
      '  ok:', //                                             2
      '    name: Fine', //                                    3
      '    client_url: https://example.com/hook', //          4
      '    event_types: [job.run.started]', //                5
      '  broken:', //                                         6
      '    name: "  "', //                                    7
      '    client_url: ftp://example.com', //                 8
      '    event_types: [job.run.started, job.run.oops]', //  9
      '    job_ids: [1, 1]', //                               10
      '    jobids: [2]', //                                   11
      '  missing:', //                                        12
      '    name: No URL', //                                  13
      '    event_types: [job.run.started]', //                14
      '  Bad Id:', //                                         15
      '    name: x', //                                       16
      '  vars:', //                                           17
      '    name: ${UNSET_NAME}', //                           18
      '    client_url: https://example.com/${ BAD }', //      19
      '    event_types: [job.run.started]', //                20
      '',
    ].join('\n'),
  );
  const fileProblems = [
    'bad.yml:7: broken: name must not be blank',
    'bad.yml:8: broken: client_url must use http or https',
    'bad.yml:9: broken: event_types may contain only job.run.started, job.run.completed, job.run.errored',
    'bad.yml:10: broken: job_ids must not repeat a job id',
    'bad.yml:11: broken: unknown field jobids: a webhook has name, description, client_url, event_types, job_ids, active, max_requests_per_second',
    'bad.yml:12: missing: client_url is required',
    'bad.yml:15: Bad Id: the identifier "Bad Id" must be letters, digits, "_", "." and "-", starting with a letter or digit, at most 64 characters',
  ];
  // All at once; a value whose variable is missing is reported once, as that (not also as an empty name).
  expect(await problemsOf(['bad.yml'])).toEqual([
    ...fileProblems,
    'bad.yml:18: vars: the environment variable UNSET_NAME is not set',
    'bad.yml:19: vars: "${ BAD }" is not a variable: write ${NAME} (letters, digits and _), or $${ for a literal ${',
  ]);
  write('bad.yml', readFileSync(join(dir, 'bad.yml'), 'utf8').replace('${ BAD }', 'fine'));
  expect(await problemsOf(['bad.yml'], { UNSET_NAME: 'n' })).toEqual(fileProblems);
});

test("max_requests_per_second (jobhooks' own) is read as a number, from a variable too; a bad one is a problem at its line", async () => {
  write(
    'rates.yml',
    [
      'webhooks:', //                                   1
      '  paced:', //                                    2
      '    name: Paced', //                             3
      '    client_url: https://example.com/a', //       4
      '    event_types: [job.run.started]', //          5
      '    max_requests_per_second: ${RATE}', //        6
      '  too-fast:', //                                 7
      '    name: Too fast', //                          8
      '    client_url: https://example.com/b', //       9
      '    event_types: [job.run.started]', //          10
      '    max_requests_per_second: 101', //            11
      '',
    ].join('\n'),
  );
  expect(await problemsOf(['rates.yml'], { RATE: '5' })).toEqual([
    'rates.yml:11: too-fast: max_requests_per_second must be a whole number from 1 to 100, or null for no limit',
  ]);
  write('rates.yml', readFileSync(join(dir, 'rates.yml'), 'utf8').replace(': 101', ': null'));
  const { declaration, problems } = await load(['rates.yml'], { RATE: '5' });
  expect(problems).toEqual([]);
  expect(declaration?.webhooks?.map(({ identifier, values }) => [identifier, values.max_requests_per_second])).toEqual([
    ['paced', 5],
    ['too-fast', null],
  ]);
});

test('YAML errors, duplicate keys, wrong shapes and files that match nothing are problems too', async () => {
  write('syntax.yml', 'webhooks:\n  a: [unclosed\n');
  expect(await problemsOf(['syntax.yml'])).toEqual([expect.stringMatching(/^syntax\.yml:\d+: YAML: /)]);
  write('twice.yml', 'webhooks:\n  a:\n    name: x\n  a:\n    name: y\n');
  expect(await problemsOf(['twice.yml'])).toEqual([
    'twice.yml:4: the key "a" is given twice in the same map; keep one',
  ]);
  write('twice-field.yml', 'webhooks:\n  a:\n    name: x\n    "name": y\n');
  expect(await problemsOf(['twice-field.yml'])).toEqual([
    'twice-field.yml:4: the key "name" is given twice in the same map; keep one',
  ]);
  write('quoted.yml', 'x-a:\n  "http://x": 1\n  "http://x": 2\nwebhooks: {}\n');
  expect(await problemsOf(['quoted.yml'])).toEqual([
    'quoted.yml:3: the key "http://x" is given twice in the same map; keep one',
  ]);
  write('two.yml', 'webhooks: {}\n---\nnamespace: x\n');
  expect(await problemsOf(['two.yml'])).toEqual([
    'two.yml:2: the file holds a second YAML document (after "---"): one file is one document; put the second in a file of its own',
  ]);
  write('list.yml', '- a\n- b\n');
  expect(await problemsOf(['list.yml'])).toEqual([
    'list.yml:1: the file must be a map with "webhooks" (and, optionally, "namespace")',
  ]);
  write('extra.yml', 'webhook:\n  a: {}\n');
  expect(await problemsOf(['extra.yml'])).toEqual([
    'extra.yml:1: webhooks must be a map from identifiers to webhooks',
    'extra.yml:1: unknown key webhook: a file has "webhooks", optionally "namespace", and keys of its own starting with "x-"',
  ]);
  write('entry.yml', 'namespace: "a b"\nwebhooks:\n  a: just text\n');
  expect(await problemsOf(['entry.yml'])).toEqual([
    'entry.yml:1: namespace must be letters, digits, "_", "." and "-", starting with a letter or digit, at most 64 characters',
    'entry.yml:3: a: a webhook must be a map of its fields (name, client_url, event_types, ...)',
  ]);
  write(
    'fields.yml',
    'webhooks:\n  a:\n    name: A\n    client_url: https://example.com\n    event_types: [job.run.started]\n    active: "yes"\n',
  );
  expect(await problemsOf(['fields.yml'])).toEqual(['fields.yml:6: a: active must be true or false']);
  expect(await problemsOf(['nope.yml', 'conf/*.yml', '.'])).toEqual([
    'nope.yml: no such file',
    'conf/*.yml: the pattern matches no file',
    '.: is not a file (a folder? use a pattern such as folder/*.yml)',
  ]);
  expect(await problemsOf([])).toEqual(['name at least one file or glob pattern (e.g. webhooks/*.yml)']);
});

test('across files: one namespace, each identifier once, and a name that fits with its marker', async () => {
  const entry = (id: string, name = 'Hook') =>
    `  ${id}:\n    name: ${name}\n    client_url: https://example.com\n    event_types: [job.run.started]\n`;
  write('a.yml', `namespace: team\nwebhooks:\n${entry('one')}${entry('two')}`);
  write('b.yml', `namespace: team\nwebhooks:\n${entry('two')}`);
  write('c.yml', `webhooks:\n${entry('three')}`);
  expect(await problemsOf(['a.yml', 'b.yml'])).toEqual([
    'b.yml:3: two: the identifier is declared twice (first at a.yml:7); each webhook needs its own',
  ]);
  expect(await problemsOf(['a.yml', 'c.yml'])).toEqual([
    'a.yml:1: the files set different namespaces (a.yml: team, c.yml: none); files applied together share one',
    'c.yml:1: the files set different namespaces (a.yml: team, c.yml: none); files applied together share one',
  ]);
  // A glob and a path naming the same file read it once: only b.yml's repeat is reported, not a.yml against itself.
  expect(await problemsOf(['[ab].yml', './a.yml'])).toEqual([
    'b.yml:3: two: the identifier is declared twice (first at a.yml:7); each webhook needs its own',
  ]);

  // 255 characters in all, marker " [[team/long]]" included.
  write('long.yml', `namespace: team\nwebhooks:\n${entry('long', 'x'.repeat(241))}`);
  expect((await load(['long.yml'])).problems).toEqual([]);
  write('long.yml', `namespace: team\nwebhooks:\n${entry('long', 'x'.repeat(242))}`);
  expect(await problemsOf(['long.yml'])).toEqual([
    'long.yml:4: long: name must be at most 241 characters here: the server keeps it with its marker, "[[team/long]]", in at most 255',
  ]);
});

test('the shipped JSON Schema is the one `schema` prints, and it accepts the files validate accepts', () => {
  const shipped: unknown = JSON.parse(
    readFileSync(resolve(__dirname, '../../provider/as-code/webhooks.schema.json'), 'utf8'),
  );
  expect(shipped).toEqual(webhooksFileJsonSchema());
  // Formats (uri) are hints for editors; the contract checks URLs itself.
  const validate = new Ajv2020({ strict: false, validateFormats: false }).compile(webhooksFileJsonSchema());
  const file = (webhook: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    parse(
      `namespace: team\nx-anchors: {}\nwebhooks:\n  one: ${JSON.stringify(webhook)}\n${Object.entries(extra)
        .map(([k, v]) => `${k}: ${JSON.stringify(v)}\n`)
        .join('')}`,
    ) as unknown;
  const valid = {
    name: 'Hook',
    client_url: 'https://example.com',
    event_types: ['job.run.started'],
    job_ids: [1],
    active: false,
  };
  expect(validate(file(valid))).toBe(true);
  for (const wrong of [
    { ...valid, jobids: [1] },
    { ...valid, event_types: ['job.run.oops'] },
    { ...valid, job_ids: ['1'] },
    { name: 'Hook', event_types: ['job.run.started'] },
  ])
    expect(validate(file(wrong))).toBe(false);
  expect(validate(file(valid, { namspace: 'typo' }))).toBe(false);
  const properties = (
    webhooksFileJsonSchema() as {
      properties: { webhooks: { additionalProperties: { properties: Record<string, { description?: string }> } } };
    }
  ).properties.webhooks.additionalProperties.properties;
  for (const field of ['name', 'description', 'client_url', 'event_types', 'job_ids', 'active'])
    expect(properties[field]?.description).toEqual(expect.any(String));
});

test('an escaped $${ leaves the next placeholder a placeholder; alias bombs and unknown tags are problems, not crashes', async () => {
  expect(substituteVariables('$${literal} and ${TEAM}', Scalar.QUOTE_DOUBLE, { TEAM: 'data' })).toEqual({
    value: '${literal} and data',
  });
  expect(substituteVariables('$${ ${TEAM}', Scalar.PLAIN, { TEAM: 'data' })).toEqual({ value: '${ data' });
  const bomb = [
    'a: &a [x, x, x, x, x, x, x, x, x, x]',
    'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
    'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
    'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
    'webhooks: {}',
    '',
  ];
  write('bomb.yml', bomb.join('\n'));
  expect(await problemsOf(['bomb.yml'])).toEqual([expect.stringMatching(/^bomb\.yml: YAML: Excessive alias count/)]);
  write('tag.yml', 'webhooks:\n  a: !secret {}\n');
  expect(await problemsOf(['tag.yml'])).toEqual([expect.stringMatching(/^tag\.yml:2: YAML: .*!secret/)]);
});
