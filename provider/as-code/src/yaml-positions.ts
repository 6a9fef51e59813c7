// Where things are in a parsed YAML document, so that every problem names its line and its webhook.
import { DECLARED_MAPS } from './declaration';
import { type Document, isAlias, isMap, isScalar, isSeq, type LineCounter, type Node } from 'yaml';

export type LineOf = (node: Node | null | undefined) => number | null;

export function lineFinder(lines: LineCounter): LineOf {
  return (node) => (node?.range ? lines.linePos(node.range[0]).line : null);
}

/** The line of the deepest node of the path that exists in the document (a map entry's key line). */
export function lineOfPath(doc: Document, path: readonly PropertyKey[], lineOf: LineOf): number | null {
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

/** The identifier of the entry a node path (from yaml's `visit`) is inside, if any. */
export function identifierOfNodePath(path: readonly unknown[]): string | null {
  // path: Document, root map, the `webhooks` (or `operational_endpoints`) pair, its map, an entry's pair, ...
  const pair = path[4];
  const mapPair = path[2];
  if (!isPairWithKey(mapPair, DECLARED_MAPS) || !isPairWithKey(pair)) return null;
  return String(pair.key.value);
}

function isPairWithKey(value: unknown, keys?: readonly string[]): value is { key: { value: unknown } } {
  if (typeof value !== 'object' || value === null || !('key' in value)) return false;
  const pairKey = (value as { key: unknown }).key;
  return isScalar(pairKey) && (keys === undefined || keys.some((key) => pairKey.value === key));
}

/**
 * What a parser error means for a webhooks file, in its words where they would puzzle (they name the library's API,
 * or not the key): the others as yamlMessage gives them. `source` is the file's text, to name a repeated key.
 */
export function yamlProblem(error: { code: string; pos: [number, number]; message: string }, source: string): string {
  if (error.code === 'MULTIPLE_DOCS')
    return 'the file holds a second YAML document (after "---"): one file is one document; put the second in a file of its own';
  if (error.code === 'DUPLICATE_KEY') {
    // The key as written where the error points: a quoted one to its closing quote (it may hold a colon).
    const line = source.slice(error.pos[0]).split('\n')[0]!;
    const quoted = /^"((?:[^"\\]|\\.)*)"|^'((?:[^']|'')*)'/.exec(line);
    const key = quoted === null ? line.split(':')[0]!.trim() : (quoted[1] ?? quoted[2]!.replace(/''/g, "'"));
    return `the key "${key}" is given twice in the same map; keep one`;
  }
  return yamlMessage(error.message);
}

/** yaml's message without the excerpt and the position it appends (the line is reported apart). */
export function yamlMessage(text: string): string {
  return `YAML: ${text
    .split('\n')[0]!
    .replace(/ at line \d+, column \d+:?$/, '')
    .trim()}`;
}
