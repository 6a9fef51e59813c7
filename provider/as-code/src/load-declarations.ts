// Reads the webhooks files into one declaration: YAML (anchors and merge keys included), `${VAR}` from the
// environment, the file format's schema, and the rules across files. Every problem of every file is reported,
// each with its file and line, so one run of `validate` shows them all.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Document, LineCounter, parseDocument, visit } from 'yaml';
import {
  DECLARED_MAPS,
  type DeclaredEndpointValues,
  type DeclaredValues,
  declaresNothing,
  WebhooksFile,
  withoutExtensionKeys,
} from './declaration';
import { expandFilePatterns } from './files';
import { type Marker, markedName, roomForName } from '@jobhooks/client/contract';
import type { Problem } from './problem';
import { messageOf, pathOf } from './problem-messages';
import { substituteVariables } from './variables';
import { identifierOfNodePath, type LineOf, lineFinder, lineOfPath, yamlMessage, yamlProblem } from './yaml-positions';

export interface DeclaredEntry<Values = DeclaredValues> {
  identifier: string;
  file: string;
  line: number | null;
  values: Values;
}

export interface Declaration {
  /** The files' namespace, or null when they set none. */
  namespace: string | null;
  files: string[];
  /**
   * Omitted when no file has the `webhooks` key: such files leave webhooks alone (a file of operational endpoints
   * alone deletes no webhook). With the key, even empty, the files manage them.
   */
  webhooks?: DeclaredEntry[];
  /**
   * Omitted when no file has the `operational_endpoints` key: such files leave operational endpoints alone (and a
   * server without them, dbt Cloud, is never asked). With the key, even empty, the files manage them.
   */
  operationalEndpoints?: Array<DeclaredEntry<DeclaredEndpointValues>>;
}

export type LoadResult = { declaration: Declaration; problems: [] } | { declaration: null; problems: Problem[] };

export async function loadDeclarations(patterns: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<LoadResult> {
  const expanded = await expandFilePatterns(patterns, cwd);
  const problems: Problem[] = [...expanded.problems];
  const parsed: ParsedFile[] = [];
  for (const file of expanded.files) {
    const result = readWebhooksFile(file, resolve(cwd, file), env);
    problems.push(...result.problems);
    if (result.parsed !== null) parsed.push(result.parsed);
  }
  const combined = combine(parsed);
  problems.push(...combined.problems);
  return problems.length === 0 && combined.declaration !== null
    ? { declaration: combined.declaration, problems: [] }
    : { declaration: null, problems };
}

interface ParsedFile {
  file: string;
  namespace: string | null;
  /** Null when the file has no `webhooks` key. */
  webhooks: DeclaredEntry[] | null;
  /** Null when the file has no `operational_endpoints` key. */
  operationalEndpoints: Array<DeclaredEntry<DeclaredEndpointValues>> | null;
  /** The line of the `namespace:` key, for the problem of files that disagree. */
  namespaceLine: number | null;
}

type Problems = Array<{ line: number | null; identifier: string | null; message: string }>;

function readWebhooksFile(file: string, path: string, env: NodeJS.ProcessEnv) {
  const problems: Problems = [];
  const parsed = parseWebhooksFile(path, env, problems);
  const sorted = problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return {
    parsed: parsed === null ? null : { file, ...parsed },
    problems: sorted.map((problem) => ({ file, ...problem })),
  };
}

/** The file's declaration, or null after adding its problems. */
function parseWebhooksFile(path: string, env: NodeJS.ProcessEnv, problems: Problems): Omit<ParsedFile, 'file'> | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    problems.push({ line: null, identifier: null, message: `cannot be read (${codeOf(error)})` });
    return null;
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, merge: true, uniqueKeys: true, prettyErrors: true });
  // Warnings too (an unknown tag, say): a file whose meaning the parser had to guess is not applied.
  for (const error of [...doc.errors, ...doc.warnings])
    problems.push({ line: error.linePos?.[0].line ?? null, identifier: null, message: yamlProblem(error, text) });
  if (problems.length > 0) return null;
  const lineOf = lineFinder(lines);
  const variableLines = substituteAll(doc, env, lineOf, problems);

  let content: unknown;
  try {
    content = doc.toJS({ maxAliasCount: 1000 });
  } catch (error) {
    // An alias bomb ("billion laughs") stops here.
    problems.push({ line: null, identifier: null, message: yamlMessage((error as Error).message) });
    return null;
  }
  const declared = withoutExtensionKeys(content);
  // The same words as when `webhooks:` was the one map a file had: most files are of webhooks.
  if (declaresNothing(declared))
    problems.push({
      line: lineOf(doc.contents),
      identifier: null,
      message: 'webhooks must be a map from identifiers to webhooks',
    });
  const checked = WebhooksFile.safeParse(declared);
  if (!checked.success) {
    for (const issue of checked.error.issues) {
      const line = lineOfPath(doc, pathOf(issue), lineOf);
      // A value whose variable is missing is reported once, as that.
      if (line !== null && variableLines.has(line)) continue;
      const inEntry = DECLARED_MAPS.some((map) => map === issue.path[0]) && typeof issue.path[1] === 'string';
      const identifier = inEntry ? String(issue.path[1]) : null;
      problems.push({ line, identifier, message: messageOf(issue) });
    }
    return null;
  }
  if (problems.length > 0) return null;
  const namespace = checked.data.namespace ?? null;
  const entriesOf = <Values extends { name: string }>(
    map: (typeof DECLARED_MAPS)[number],
    declared: Record<string, Values>,
  ) => {
    const entries = Object.entries(declared).map(([identifier, values]) => ({
      identifier,
      file: '',
      line: lineOfPath(doc, [map, identifier], lineOf),
      values,
    }));
    for (const entry of entries) {
      const problem = nameTooLong(entry.values.name, { namespace, identifier: entry.identifier });
      if (problem !== null)
        problems.push({
          line: lineOfPath(doc, [map, entry.identifier, 'name'], lineOf),
          identifier: entry.identifier,
          message: problem,
        });
    }
    return entries;
  };
  const webhooksMap = checked.data.webhooks;
  const webhooks = webhooksMap === undefined ? null : entriesOf('webhooks', webhooksMap);
  const endpointsMap = checked.data.operational_endpoints;
  const operationalEndpoints = endpointsMap === undefined ? null : entriesOf('operational_endpoints', endpointsMap);
  if (problems.length > 0) return null;
  return { namespace, webhooks, operationalEndpoints, namespaceLine: lineOfPath(doc, ['namespace'], lineOf) };
}

/** Replaces `${VAR}` in every value; answers the lines of the values that could not be completed. */
function substituteAll(doc: Document, env: NodeJS.ProcessEnv, lineOf: LineOf, problems: Problems): Set<number> {
  const lines = new Set<number>();
  visit(doc, {
    Scalar(key, node, path) {
      if (key === 'key' || typeof node.value !== 'string') return;
      const result = substituteVariables(node.value, node.type, env);
      if ('value' in result) {
        node.value = result.value;
        return;
      }
      const line = lineOf(node);
      if (line !== null) lines.add(line);
      problems.push({ line, identifier: identifierOfNodePath(path), message: result.problem });
    },
  });
  return lines;
}

function nameTooLong(name: string, marker: Marker): string | null {
  const room = roomForName(marker);
  if (name.length <= room) return null;
  const suffix = markedName('', marker).trim();
  return `name must be at most ${room} characters here: the server keeps it with its marker, "${suffix}", in at most ${room + suffix.length + 1}`;
}

/** The rules across files: one namespace, and each identifier once. */
function combine(files: ParsedFile[]): { declaration: Declaration | null; problems: Problem[] } {
  const problems: Problem[] = [];
  const namespaces = new Set(files.map((file) => file.namespace));
  if (namespaces.size > 1) {
    const said = files.map((file) => `${file.file}: ${file.namespace ?? 'none'}`).join(', ');
    for (const file of files)
      problems.push({
        file: file.file,
        line: file.namespaceLine,
        identifier: null,
        message: `the files set different namespaces (${said}); files applied together share one`,
      });
  }
  const webhooks = onceEach(
    files.flatMap((file) => (file.webhooks ?? []).map((entry) => ({ ...entry, file: file.file }))),
    'webhook',
    problems,
  );
  const operationalEndpoints = onceEach(
    files.flatMap((file) => (file.operationalEndpoints ?? []).map((entry) => ({ ...entry, file: file.file }))),
    'operational endpoint',
    problems,
  );
  const managesWebhooks = files.some((file) => file.webhooks !== null);
  const managesEndpoints = files.some((file) => file.operationalEndpoints !== null);
  if (problems.length > 0) return { declaration: null, problems };
  const declaration: Declaration = {
    namespace: files[0]?.namespace ?? null,
    files: files.map((file) => file.file),
    ...(managesWebhooks ? { webhooks } : {}),
    ...(managesEndpoints ? { operationalEndpoints } : {}),
  };
  return { declaration, problems: [] };
}

/** The entries of one kind, each identifier once; a second declaration of one is a problem. */
function onceEach<Values>(entries: Array<DeclaredEntry<Values>>, noun: string, problems: Problem[]) {
  const seen = new Map<string, DeclaredEntry<Values>>();
  for (const entry of entries) {
    const first = seen.get(entry.identifier);
    if (first === undefined) seen.set(entry.identifier, entry);
    else
      problems.push({
        file: entry.file,
        line: entry.line,
        identifier: entry.identifier,
        message: `the identifier is declared twice (first at ${first.file}:${first.line ?? '?'}); each ${noun} needs its own`,
      });
  }
  return [...seen.values()];
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}
