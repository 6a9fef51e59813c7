// Reads the webhooks files into one declaration: YAML (anchors and merge keys included), `${VAR}` from the
// environment, the file format's schema, and the rules across files. Every problem keeps its file and line.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { LIMITS } from '@jobhooks/client/contract';
import { type Document, isAlias, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument, visit } from 'yaml';
import type { z } from 'zod';
import { type DeclaredValues, WEBHOOK_FIELDS, WebhooksFile, withoutExtensionKeys } from './declaration';
import { expandFilePatterns } from './files';
import { markedName } from './marker';
import type { Problem } from './problem';
import { substituteVariables } from './variables';

export interface DeclaredEntry {
  identifier: string;
  file: string;
  line: number | null;
  values: DeclaredValues;
}

export interface Declaration {
  /** The files' namespace, or null when they set none. */
  namespace: string | null;
  files: string[];
  webhooks: DeclaredEntry[];
}

export type LoadResult = { declaration: Declaration; problems: [] } | { declaration: null; problems: Problem[] };

export async function loadDeclarations(patterns: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<LoadResult> {
  const expanded = await expandFilePatterns(patterns, cwd);
  if (expanded.problems.length > 0) return { declaration: null, problems: expanded.problems };
  const problems: Problem[] = [];
  const parsed: ParsedFile[] = [];
  for (const file of expanded.files) {
    const result = readWebhooksFile(file, resolve(cwd, file), env);
    problems.push(...result.problems);
    if (result.parsed !== null) parsed.push(result.parsed);
  }
  if (problems.length > 0) return { declaration: null, problems };
  const combined = combine(parsed);
  return combined.problems.length > 0 ? { declaration: null, problems: combined.problems } : combined;
}

interface ParsedFile {
  file: string;
  namespace: string | null;
  webhooks: DeclaredEntry[];
  /** The line of the `namespace:` key, for the problem of files that disagree. */
  namespaceLine: number | null;
}

function readWebhooksFile(file: string, path: string, env: NodeJS.ProcessEnv) {
  const at = (line: number | null, identifier: string | null, message: string): Problem => ({
    file,
    line,
    identifier,
    message,
  });
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return {
      parsed: null,
      problems: [
        at(null, null, `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`),
      ],
    };
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, merge: true, uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    const problems = doc.errors.map((error) =>
      at(error.linePos?.[0].line ?? null, null, `YAML: ${firstLine(error.message)}`),
    );
    return { parsed: null, problems };
  }
  const lineOf = (node: Node | null | undefined) => (node?.range ? lines.linePos(node.range[0]).line : null);

  const problems: Problem[] = [];
  visit(doc, {
    Scalar(key, node, path) {
      if (key === 'key' || typeof node.value !== 'string') return;
      const result = substituteVariables(node.value, node.type, env);
      if ('problem' in result) problems.push(at(lineOf(node), identifierOfNodePath(path), result.problem));
      else node.value = result.value;
    },
  });
  if (problems.length > 0) return { parsed: null, problems };

  const checked = WebhooksFile.safeParse(withoutExtensionKeys(doc.toJS({ maxAliasCount: 1000 })));
  if (!checked.success) {
    for (const issue of checked.error.issues) {
      const identifier = issue.path[0] === 'webhooks' && typeof issue.path[1] === 'string' ? issue.path[1] : null;
      // An unknown field is shown at its own line rather than its entry's.
      const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
      problems.push(at(lineOfPath(doc, path, lineOf), identifier, messageOf(issue)));
    }
    return { parsed: null, problems: problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0)) };
  }
  const namespace = checked.data.namespace ?? null;
  const webhooks = Object.entries(checked.data.webhooks).map(([identifier, values]) => ({
    identifier,
    file,
    line: lineOfPath(doc, ['webhooks', identifier], lineOf),
    values,
  }));
  for (const entry of webhooks) {
    const name = markedName(entry.values.name, { namespace, identifier: entry.identifier });
    if (name.length > LIMITS.nameMaxChars) {
      const room = LIMITS.nameMaxChars - (name.length - entry.values.name.length);
      const line = lineOfPath(doc, ['webhooks', entry.identifier, 'name'], lineOf);
      problems.push(
        at(
          line,
          entry.identifier,
          `name must be at most ${room} characters here: the server keeps it with its marker, "${name.slice(entry.values.name.length + 1)}", in at most ${LIMITS.nameMaxChars}`,
        ),
      );
    }
  }
  const namespaceLine = lineOfPath(doc, ['namespace'], lineOf);
  return { parsed: { file, namespace, webhooks, namespaceLine }, problems };
}

/** The rules across files: one namespace, and each identifier once. */
function combine(files: ParsedFile[]): LoadResult {
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
  const seen = new Map<string, DeclaredEntry>();
  for (const entry of files.flatMap((file) => file.webhooks)) {
    const first = seen.get(entry.identifier);
    if (first === undefined) seen.set(entry.identifier, entry);
    else
      problems.push({
        file: entry.file,
        line: entry.line,
        identifier: entry.identifier,
        message: `the identifier is declared twice (first at ${first.file}:${first.line ?? '?'}); each webhook needs its own`,
      });
  }
  if (problems.length > 0) return { declaration: null, problems };
  const declaration = {
    namespace: files[0]?.namespace ?? null,
    files: files.map((file) => file.file),
    webhooks: [...seen.values()],
  };
  return { declaration, problems: [] };
}

/** The identifier of the entry a node path (from yaml's visit) is inside, if any. */
function identifierOfNodePath(path: readonly unknown[]): string | null {
  // path: Document, root map, the `webhooks` pair, the webhooks map, an entry's pair, ...
  const pair = path[4];
  const webhooksPair = path[2];
  if (!isPairWithKey(webhooksPair, 'webhooks') || !isPairWithKey(pair)) return null;
  return String(pair.key.value);
}

function isPairWithKey(value: unknown, key?: string): value is { key: { value: unknown } } {
  if (typeof value !== 'object' || value === null || !('key' in value)) return false;
  const pairKey = (value as { key: unknown }).key;
  return isScalar(pairKey) && (key === undefined || pairKey.value === key);
}

/** The line of the deepest node of the path that exists in the document (a map entry's key line). */
function lineOfPath(
  doc: Document,
  path: readonly PropertyKey[],
  lineOf: (node: Node | null | undefined) => number | null,
): number | null {
  let node: unknown = doc.contents;
  let line = lineOf(doc.contents);
  for (const segment of path) {
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
      if (pair === undefined) break;
      line = lineOf(pair.key as Node) ?? line;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment];
      if (item === undefined) break;
      line = lineOf(item as Node) ?? line;
      node = item;
    } else break;
  }
  return line;
}

/** The contract's message, or one in the words of a file where the contract speaks of a request body. */
function messageOf(issue: z.core.$ZodIssue): string {
  const depth = issue.path.length;
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.join(', ');
    return depth === 0
      ? `unknown key ${keys}: a file has "webhooks", optionally "namespace", and keys of its own starting with "x-"`
      : `unknown field ${keys}: a webhook has ${WEBHOOK_FIELDS.join(', ')}`;
  }
  if (issue.code === 'invalid_key')
    return `the identifier "${String(issue.path[1])}" ${issue.issues[0]?.message ?? 'is not valid'}`;
  if (issue.code === 'invalid_type' && depth === 0)
    return 'the file must be a map with "webhooks" (and, optionally, "namespace")';
  if (issue.code === 'invalid_type' && depth === 1 && issue.path[0] === 'webhooks')
    return 'webhooks must be a map from identifiers to webhooks';
  if (issue.code === 'invalid_type' && depth === 2)
    return 'a webhook must be a map of its fields (name, client_url, event_types, ...)';
  if (depth === 1 && issue.path[0] === 'namespace') return `namespace ${issue.message}`;
  return issue.message;
}

/** yaml's message without the excerpt and the position it appends (the line is reported apart). */
function firstLine(text: string): string {
  return text
    .split('\n')[0]!
    .replace(/ at line \d+, column \d+:?$/, '')
    .trim();
}
