// The packages are ready to publish and move together: each has the metadata a registry page shows, a README
// that starts with its own install line and a CHANGELOG it ships; `npm publish --dry-run` passes for each with
// nothing to correct; one command sets every version and the ranges between them; the release workflow runs
// the CI script and publishes in dependency order, with provenance.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import {
  docsWithInstallLines,
  type Manifest,
  pinnedVersions,
  publishOrder,
  withChangelogSection,
  withPinnedVersions,
  withVersion,
} from '../../scripts/release-packages';

jest.setTimeout(60_000);

const ROOT = resolve(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const rootManifest = JSON.parse(read('package.json')) as Manifest & {
  workspaces: string[];
  repository: { url: string };
  allowScripts: Record<string, boolean>;
};
const workspaces = rootManifest.workspaces.map((dir) => ({
  dir,
  manifest: JSON.parse(read(join(dir, 'package.json'))) as Manifest & Record<string, unknown>,
}));
const OURS = new Set(workspaces.map((workspace) => workspace.manifest.name));

/** The modules a CommonJS file requires by a literal name. */
const requiredModules = (source: string) => [...source.matchAll(/\brequire\(["']([^"']+)["']\)/g)].map((m) => m[1]!);
/** The package a module name belongs to: `@scope/name` or `name`. */
const packageName = (module: string) =>
  module
    .split('/')
    .slice(0, module.startsWith('@') ? 2 : 1)
    .join('/');
/** Whether a required module is a file shipped in the package, a declared dependency, or one of Node's. */
function shippedOrDeclared(module: string, from: string, files: readonly string[], declared: ReadonlySet<string>) {
  if (module.startsWith('node:') || isBuiltin(module)) return true;
  if (!module.startsWith('.')) return declared.has(packageName(module));
  const target = join(from, '..', module);
  return [target, `${target}.js`, `${target}.json`, join(target, 'index.js')].some((file) => files.includes(file));
}

describe.each(workspaces)('$manifest.name', ({ dir, manifest }) => {
  test('has repository, homepage, bugs, keywords and engines, the same version as the others, and exact ranges on them', () => {
    expect(manifest).toMatchObject({
      repository: { type: 'git', url: expect.stringMatching(/^git\+https:\/\/.+\.git$/), directory: dir },
      homepage: expect.stringMatching(/^https:\/\//),
      bugs: { url: expect.stringMatching(/^https:\/\//) },
      keywords: expect.arrayContaining(['jobhooks']),
      engines: { node: '>=20.19' },
      license: 'MIT',
      version: rootManifest.version,
    });
    // The release workflow compares the root's with the repository it runs in: every package names the same.
    expect((manifest.repository as { url: string }).url).toBe(rootManifest.repository.url);
    for (const field of ['dependencies', 'peerDependencies'] as const)
      for (const [name, range] of Object.entries(manifest[field] ?? {}))
        if (OURS.has(name)) expect(`${name}@${range}`).toBe(`${name}@${rootManifest.version}`);
  });

  test('has a README that starts with its own install line, and a CHANGELOG with an Unreleased section, both shipped', () => {
    const readme = read(join(dir, 'README.md')).split('\n');
    expect(readme[0]).toBe(`# ${manifest.name}`);
    expect(readme.slice(1, 4)).toEqual(['', '```sh', expect.stringMatching(/^(npm install|npx) /)]);
    expect(readme[3]).toContain(manifest.name);
    // npm 11 runs no install script it was not told to allow: the line allows those the package needs.
    for (const dependency of Object.keys(manifest.dependencies ?? {}))
      if (rootManifest.allowScripts[dependency] === true) expect(readme[3]).toContain(`--allow-scripts=${dependency}`);
    expect(read(join(dir, 'CHANGELOG.md'))).toMatch(/^## Unreleased$/m);
    expect(manifest.files).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', 'LICENSE']));
  });
});

test('`npm publish --dry-run` passes for every package, with nothing for npm to correct and the files each needs', () => {
  // The packages as built by `npm test` (--ignore-scripts: no second build).
  const result = spawnSync('npm', ['publish', '--dry-run', '--json', '--workspaces', '--ignore-scripts'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect(result.status).toBe(0);
  expect(result.stderr).not.toMatch(/auto-corrected|npm error/i);
  const published = JSON.parse(result.stdout) as Record<string, { version: string; files: Array<{ path: string }> }>;
  expect(Object.keys(published).sort()).toEqual([...OURS].sort());
  for (const { manifest } of workspaces) {
    const files = published[manifest.name]!.files.map((file) => file.path);
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE']));
    expect(files).toContain((manifest.main as string).replace(/^\.\//, ''));
  }
  expect(published['@jobhooks/terraform-provider']!.files.map((file) => file.path)).toEqual(
    expect.arrayContaining(['dist/provider-program.js', 'dist/provider-start.js']),
  );
  // Every module a published file requires is shipped beside it, or declared, or Node's own: no dead file that
  // needs what only the build had (the provider's grpc, say, now bundled into dist/provider-program.js).
  for (const { dir, manifest } of workspaces) {
    const files = published[manifest.name]!.files.map((file) => file.path);
    const declared = new Set(
      Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies }),
    );
    // (The web UI's scripts, dist/ui, run in the browser, which loads nothing by require.)
    const unmet = files
      .filter((file) => file.endsWith('.js') && !file.startsWith('dist/ui/'))
      .flatMap((file) =>
        requiredModules(read(join(dir, file)))
          .filter((name) => !shippedOrDeclared(name, file, files, declared))
          .map((name) => `${manifest.name}/${file} requires ${name}`),
      );
    expect(unmet).toEqual([]);
  }
});

test("the modules a package's own build script requires are its declared devDependencies", () => {
  for (const { dir, manifest } of workspaces) {
    const scripts = Object.values((manifest.scripts ?? {}) as Record<string, string>).flatMap((command) =>
      [...command.matchAll(/\bnode ([\w./-]+\.js)\b/g)].map((match) => match[1]!),
    );
    const declared = new Set(Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }));
    const unmet = scripts.flatMap((script) =>
      // (Its comments left out: they may show a require() of their own.)
      requiredModules(read(join(dir, script)).replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''))
        .filter((name) => !name.startsWith('.') && !isBuiltin(name) && !declared.has(packageName(name)))
        .map((name) => `${dir}/${script} requires ${name}`),
    );
    expect(unmet).toEqual([]);
  }
});

test('`npm run release:version` sets every version, the ranges between the packages and in the examples, and a CHANGELOG section, leaving other ranges alone', () => {
  const copy = mkdtempSync(join(tmpdir(), 'jobhooks-release-'));
  try {
    cpSync(join(ROOT, 'package.json'), join(copy, 'package.json'));
    for (const { dir } of workspaces)
      for (const file of ['package.json', 'CHANGELOG.md']) cpSync(join(ROOT, dir, file), join(copy, dir, file));
    const example = join('examples', 'as-code', 'package.json');
    cpSync(join(ROOT, example), join(copy, example));
    const docs = docsWithInstallLines(
      ROOT,
      workspaces.map((workspace) => workspace.dir),
    ).map((file) => file.slice(ROOT.length + 1));
    for (const doc of docs) cpSync(join(ROOT, doc), join(copy, doc));
    execFileSync(
      process.execPath,
      [require.resolve('tsx/cli'), 'scripts/release-packages.ts', 'version', '9.8.7', '--root', copy, '--no-lock'],
      { cwd: ROOT, stdio: 'pipe' },
    );
    const bumped = (dir: string) => JSON.parse(readFileSync(join(copy, dir, 'package.json'), 'utf8')) as Manifest;
    expect(bumped('.').version).toBe('9.8.7');
    for (const { dir, manifest } of workspaces) {
      const next = bumped(dir);
      expect(next.version).toBe('9.8.7');
      for (const field of ['dependencies', 'devDependencies', 'peerDependencies'] as const)
        for (const [name, range] of Object.entries(manifest[field] ?? {}))
          expect(next[field]![name]).toBe(OURS.has(name) ? '9.8.7' : range);
      expect(readFileSync(join(copy, dir, 'CHANGELOG.md'), 'utf8')).toMatch(
        /^## Unreleased\n\nNothing yet\.\n\n## 9\.8\.7\n/m,
      );
    }
    const exampleBumped = JSON.parse(readFileSync(join(copy, example), 'utf8')) as Manifest;
    expect(exampleBumped.devDependencies).toEqual({ '@jobhooks/as-code': '^9.8.7' });
    expect(exampleBumped.version).toBe('0.0.0');
    const pinned = docs.flatMap((doc) => pinnedVersions(readFileSync(join(copy, doc), 'utf8'), OURS));
    expect(pinned.length).toBeGreaterThan(0);
    expect(new Set(pinned)).toEqual(new Set(['9.8.7']));
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});

test("the install lines of the docs that pin a package name the packages' version, the one `release:version` moves", () => {
  const files = docsWithInstallLines(
    ROOT,
    workspaces.map((workspace) => workspace.dir),
  );
  expect(files.map((file) => file.slice(ROOT.length + 1))).toEqual(
    expect.arrayContaining(['docs/install.md', 'provider/terraform/README.md']),
  );
  const pins = files.flatMap((file) =>
    pinnedVersions(readFileSync(file, 'utf8'), OURS).map((pinned) => `${file.slice(ROOT.length + 1)}: ${pinned}`),
  );
  expect(pins.filter((pin) => pin.startsWith('docs/install.md')).length).toBeGreaterThan(0);
  expect(pins.filter((pin) => !pin.endsWith(`: ${rootManifest.version}`))).toEqual([]);
});

test('withPinnedVersions moves only our packages pinned at an exact version', () => {
  const ours = new Set(['jobhooks', '@jobhooks/terraform-provider']);
  const text =
    'npx @jobhooks/terraform-provider@0.1.0 install; npm i -g jobhooks@0.1.0; cdktf@0.21.0; @jobhooks/terraform-provider install; me@jobhooks@0.1.0';
  expect(withPinnedVersions(text, '2.0.0', ours)).toBe(
    'npx @jobhooks/terraform-provider@2.0.0 install; npm i -g jobhooks@2.0.0; cdktf@0.21.0; @jobhooks/terraform-provider install; me@jobhooks@0.1.0',
  );
  expect(pinnedVersions(text, ours)).toEqual(['0.1.0', '0.1.0']);
});

test('withVersion and withChangelogSection: pure, and a CHANGELOG without an Unreleased section is refused', () => {
  const manifest: Manifest = { name: 'a', version: '1.0.0', dependencies: { b: '1.0.0', zod: '^4.0.0' } };
  expect(withVersion(manifest, '2.0.0', new Set(['b']))).toEqual({
    name: 'a',
    version: '2.0.0',
    dependencies: { b: '2.0.0', zod: '^4.0.0' },
  });
  expect(manifest.version).toBe('1.0.0');
  expect(() => withChangelogSection('# Changelog\n\n## 1.0.0\n', '2.0.0')).toThrow('no "## Unreleased" section');
});

test('the publish order puts every package after the packages it depends on', () => {
  const order = publishOrder(workspaces);
  expect(order).toHaveLength(workspaces.length);
  for (const { dir, manifest } of workspaces) {
    const needs = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }).filter((name) =>
      OURS.has(name),
    );
    for (const name of needs) {
      const dependency = workspaces.find((workspace) => workspace.manifest.name === name)!.dir;
      expect(order.indexOf(dependency)).toBeLessThan(order.indexOf(dir));
    }
  }
  expect(order[0]).toBe('provider/client');
});

test('the release workflow first checks that the packages name the repository it runs in, and stops with one sentence when they do not', () => {
  const workflow = parse(read('.github/workflows/release.yml')) as {
    jobs: { release: { steps: Array<{ uses?: string; run?: string }> } };
  };
  const steps = workflow.jobs.release.steps;
  expect(steps[0]!.uses).toMatch(/^actions\/checkout@/);
  const check = steps[1]!.run!;
  expect(check).toContain('git+$GITHUB_SERVER_URL/$GITHUB_REPOSITORY.git');
  const [host, repository] = /^git\+(https:\/\/[^/]+)\/(.+)\.git$/.exec(rootManifest.repository.url)!.slice(1);
  const runIn = (server: string, name: string) =>
    spawnSync('bash', ['--noprofile', '--norc', '-e', '-c', check], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: name },
      encoding: 'utf8',
    });
  expect(runIn(host!, repository!)).toMatchObject({ status: 0, stderr: '' });
  const elsewhere = runIn('https://github.com', 'someone/fork');
  expect(elsewhere.status).toBe(1);
  expect(elsewhere.stderr).toBe(
    `The packages name the repository ${rootManifest.repository.url}, but this release runs in git+https://github.com/someone/fork.git: npm refuses a provenance publish from another repository. Set repository, homepage and bugs in every package.json to this repository (docs/releasing.md).\n`,
  );
});

test('the release workflow runs on a version tag, checks the tag, runs .ci/run, then publishes in that order with provenance', () => {
  const workflow = parse(read('.github/workflows/release.yml')) as {
    on: { push: { tags: string[] } };
    permissions: Record<string, string>;
    jobs: { release: { steps: Array<{ name?: string; run?: string }> } };
  };
  expect(workflow.on.push.tags).toEqual(['v*.*.*']);
  expect(workflow.permissions['id-token']).toBe('write');
  const runs = workflow.jobs.release.steps.map((step) => step.run ?? '');
  const checkTag = runs.findIndex((run) => run.includes('$GITHUB_REF_NAME'));
  const ci = runs.indexOf('bash .ci/run');
  const publish = runs.findIndex((run) => run.includes('npm publish'));
  expect([checkTag >= 0, ci > checkTag, publish > ci]).toEqual([true, true, true]);
  expect(runs[publish]).toContain('$(npm run --silent release:order)');
  expect(runs[publish]).toContain('--provenance');
  expect(rootManifest.scripts).toMatchObject({
    'release:order': 'tsx scripts/release-packages.ts order',
    'release:version': 'tsx scripts/release-packages.ts version',
  });
});
