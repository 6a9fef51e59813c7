// The repository's own documentation holds together: every docs/ link in the code and the docs, and every relative
// link between the guides, leads to a file and a heading that exist, every source file the docs name exists, and no
// comment cites a document the repository does not have.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const ROOT = join(__dirname, '..');
const SKIP = new Set(['node_modules', 'dist', '.git', 'test-output', 'cdktf.out', '.terraform']);

function filesUnder(dir: string, extensions: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path, extensions);
    return extensions.test(name) ? [path] : [];
  });
}

/** GitHub's anchor for a heading: lower case, punctuation other than hyphens dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(markdownFile: string): Set<string> {
  const headings = readFileSync(markdownFile, 'utf8').match(/^#{1,6} .*$/gm) ?? [];
  return new Set(headings.map((line) => anchorOf(line.replace(/^#+ /, ''))));
}

const CODE = ['service/src', 'provider', 'test', 'bench', 'examples'].flatMap((dir) =>
  filesUnder(join(ROOT, dir), /\.(ts|js|cjs)$/),
);
const DOCS = [
  join(ROOT, 'README.md'),
  ...filesUnder(join(ROOT, 'docs'), /\.md$/),
  ...filesUnder(join(ROOT, 'service'), /^README\.md$/),
];

test('every docs/ link in code comments and in the docs leads to a file and a heading that exist', () => {
  const broken: string[] = [];
  for (const file of [...CODE, ...DOCS]) {
    const text = readFileSync(file, 'utf8');
    for (const [, doc, anchor] of text.matchAll(/\bdocs\/([\w-]+\.md)(?:#([\w-]+))?/g)) {
      const target = join(ROOT, 'docs', doc!);
      let ok: boolean;
      try {
        ok = anchor === undefined || anchorsOf(target).has(anchor);
      } catch {
        ok = false;
      }
      if (!ok) broken.push(`${relative(ROOT, file)}: docs/${doc}${anchor ? `#${anchor}` : ''}`);
    }
  }
  expect(broken).toEqual([]);
});

/** The guides under docs/, whose links to each other are relative (`operating.md#settings`), as a Git host renders them. */
const GUIDES = filesUnder(join(ROOT, 'docs'), /\.md$/);

test('every relative link in the guides leads to a file, and to a heading of it when it names one', () => {
  const broken: string[] = [];
  for (const file of GUIDES) {
    // Links outside code spans and blocks: [text](target) and ![alt](target).
    const prose = readFileSync(file, 'utf8')
      .replace(/^```[\s\S]*?^```/gm, '')
      .replace(/`[^`\n]*`/g, '');
    for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z+.-]*:/i.test(target!)) continue; // https:, mailto:
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const resolved = path === '' ? file : join(dirname(file), path);
      let ok: boolean;
      try {
        statSync(resolved);
        ok = anchor === undefined || !resolved.endsWith('.md') || anchorsOf(resolved).has(anchor);
      } catch {
        ok = false;
      }
      if (!ok) broken.push(`${relative(ROOT, file)}: ${target}`);
    }
  }
  expect(GUIDES.length).toBeGreaterThan(0);
  expect(broken).toEqual([]);
});

test('every source file the docs name exists', () => {
  const missing: string[] = [];
  for (const file of DOCS) {
    for (const [path] of readFileSync(file, 'utf8').matchAll(
      /(?<![\w/.-])(?:service|provider)\/[\w/.-]+\.(?:ts|js)\b/g,
    )) {
      try {
        statSync(join(ROOT, path));
      } catch {
        missing.push(`${relative(ROOT, file)}: ${path}`);
      }
    }
  }
  expect(missing).toEqual([]);
});

test('no comment cites a specification or design document by section, or a folder outside the repository', () => {
  const citations: string[] = [];
  for (const file of CODE) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        if (/\b(spec|specification|design)\s+(section|§)\s*\d|\.\.\/shared\b/i.test(line)) {
          citations.push(`${relative(ROOT, file)}:${index + 1}: ${line.trim()}`);
        }
      });
  }
  expect(citations).toEqual([]);
});

test('the guides are written for their readers, in the third person: no "I", "we" or "our"', () => {
  const firstPerson = /\b(I|I'm|I've|we|We|our|Our)\b(?!\/O)/;
  const offending = [...DOCS, ...filesUnder(join(ROOT, 'provider'), /^README\.md$/)].flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) => (firstPerson.test(line) ? [`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : [])),
  );
  expect(offending).toEqual([]);
});
