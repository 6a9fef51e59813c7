// The packages move together: `npm run release:version -- 1.2.3` sets every workspace's version, the exact
// ranges between them and the root's (and the examples' caret ranges), the pinned install lines of the docs
// (`npx @jobhooks/terraform-provider@1.2.3 install`), opens each CHANGELOG's section for it and refreshes
// package-lock.json;
// `npm run release:order` prints the workspaces in the order they publish (each after those it depends on).
// The release workflow (.github/workflows/release.yml) uses both.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

export interface Manifest {
  name: string;
  version: string;
  workspaces?: string[];
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  [field: string]: unknown;
}

const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'] as const;
const SEMVER = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

/** The manifest with the new version, and every range on one of `ours` set to exactly that version. */
export function withVersion(manifest: Manifest, version: string, ours: ReadonlySet<string>): Manifest {
  const next: Manifest = { ...manifest, version };
  for (const field of DEPENDENCY_FIELDS) {
    const ranges = manifest[field];
    if (ranges === undefined) continue;
    next[field] = Object.fromEntries(
      Object.entries(ranges).map(([name, range]) => [name, ours.has(name) ? version : range]),
    );
  }
  return next;
}

/** The CHANGELOG with its "Unreleased" section named for the version, and a new empty one above it. */
export function withChangelogSection(changelog: string, version: string): string {
  if (!/^## Unreleased$/m.test(changelog)) throw new Error('the CHANGELOG has no "## Unreleased" section');
  return changelog.replace(/^## Unreleased$/m, `## Unreleased\n\nNothing yet.\n\n## ${version}`);
}

/** A package of ours named at an exact version, as a pinned install line writes it: `@jobhooks/client@1.2.3`. */
const PINNED = /(?<![\w@/.-])(@jobhooks\/[a-z0-9-]+|jobhooks)@(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)(?![\w.-])/g;

/** The versions at which the text pins packages of `ours`, in order. */
export function pinnedVersions(text: string, ours: ReadonlySet<string>): string[] {
  return [...text.matchAll(PINNED)].filter((match) => ours.has(match[1]!)).map((match) => match[2]!);
}

/** The text with every package of `ours` it pins at an exact version pinned at the new one instead. */
export function withPinnedVersions(text: string, version: string, ours: ReadonlySet<string>): string {
  return text.replace(PINNED, (whole, name: string) => (ours.has(name) ? `${name}@${version}` : whole));
}

/** The workspaces' folders, each after the workspaces it depends on (dependencies and peer dependencies). */
export function publishOrder(workspaces: ReadonlyArray<{ dir: string; manifest: Manifest }>): string[] {
  const byName = new Map(workspaces.map((workspace) => [workspace.manifest.name, workspace]));
  const ordered: string[] = [];
  const visiting = new Set<string>();
  const visit = (name: string) => {
    const workspace = byName.get(name)!;
    if (ordered.includes(workspace.dir)) return;
    if (visiting.has(name)) throw new Error(`the workspaces depend on each other in a cycle through ${name}`);
    visiting.add(name);
    const needs = { ...workspace.manifest.dependencies, ...workspace.manifest.peerDependencies };
    for (const dependency of Object.keys(needs).filter((each) => byName.has(each))) visit(dependency);
    ordered.push(workspace.dir);
  };
  for (const name of byName.keys()) visit(name);
  return ordered;
}

const readManifest = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Manifest;
const writeManifest = (file: string, manifest: Manifest) =>
  writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);

function workspacesOf(root: string) {
  const rootManifest = readManifest(join(root, 'package.json'));
  return (rootManifest.workspaces ?? []).map((dir) => ({
    dir,
    manifest: readManifest(join(root, dir, 'package.json')),
  }));
}

/** The examples' own projects (examples/NAME/package.json): they install the packages by a caret range. */
function exampleManifests(root: string): string[] {
  const examples = join(root, 'examples');
  if (!existsSync(examples)) return [];
  return readdirSync(examples)
    .map((name) => join(examples, name, 'package.json'))
    .filter((file) => existsSync(file));
}

/** The docs whose install lines may pin a version: the READMEs (the root's, each workspace's) and docs/*.md. */
export function docsWithInstallLines(root: string, workspaceDirs: readonly string[]): string[] {
  const docs = join(root, 'docs');
  const guides = existsSync(docs)
    ? readdirSync(docs)
        .filter((name) => name.endsWith('.md'))
        .map((name) => join(docs, name))
    : [];
  return [join(root, 'README.md'), ...workspaceDirs.map((dir) => join(root, dir, 'README.md')), ...guides].filter(
    (file) => existsSync(file),
  );
}

export function setVersion(root: string, version: string): void {
  if (!SEMVER.test(version)) throw new Error(`the version must look like 1.2.3, not "${version}"`);
  const workspaces = workspacesOf(root);
  const ours = new Set(workspaces.map((workspace) => workspace.manifest.name));
  writeManifest(join(root, 'package.json'), withVersion(readManifest(join(root, 'package.json')), version, ours));
  for (const { dir, manifest } of workspaces) {
    writeManifest(join(root, dir, 'package.json'), withVersion(manifest, version, ours));
    const changelog = join(root, dir, 'CHANGELOG.md');
    if (existsSync(changelog)) writeFileSync(changelog, withChangelogSection(readFileSync(changelog, 'utf8'), version));
  }
  for (const file of exampleManifests(root)) {
    const manifest = readManifest(file);
    writeManifest(file, { ...withVersion(manifest, `^${version}`, ours), version: manifest.version });
  }
  for (const file of docsWithInstallLines(
    root,
    workspaces.map((workspace) => workspace.dir),
  ))
    writeFileSync(file, withPinnedVersions(readFileSync(file, 'utf8'), version, ours));
}

function main(args: string[]): number {
  const options = { root: { type: 'string' }, 'no-lock': { type: 'boolean' } } as const;
  const { positionals, values } = parseArgs({ args, options, allowPositionals: true });
  const [command, version] = positionals;
  const root = resolve(values.root ?? join(__dirname, '..'));
  if (command === 'order') {
    process.stdout.write(`${publishOrder(workspacesOf(root)).join('\n')}\n`);
    return 0;
  }
  if (command === 'version' && version !== undefined) {
    setVersion(root, version);
    if (!values['no-lock']) {
      const lock = spawnSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], {
        cwd: root,
        stdio: 'inherit',
      });
      if (lock.status !== 0) return 1;
    }
    process.stdout.write(`Every package is at ${version}; the CHANGELOGs have a section for it.\n`);
    return 0;
  }
  process.stderr.write('Usage: release-packages.ts version X.Y.Z [--root DIR] [--no-lock] | order [--root DIR]\n');
  return 2;
}

if (require.main === module) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`release-packages: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
