// `npm start`: builds the workspace only when a source changed since the last build this script made (or a built
// file is missing), then runs `jobhooks start` in this process. A fresh clone (or a fresh `npm ci`, which empties
// node_modules and with it the stamp) builds once; later starts go straight to the service.
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const { workspaces } = require('../package.json');
/** Kept in node_modules: `npm ci` removes it, so new dependencies (a new esbuild, say) always get a build. */
const STAMP = join(ROOT, 'node_modules', '.cache', 'jobhooks', 'built');
/** The files of the root that every package's build reads. */
const ROOT_INPUTS = ['package.json', 'package-lock.json', 'tsconfig.base.json'];
/** What a build writes into a package folder besides dist/ (as-code's JSON Schema): output, not input. */
const GENERATED = new Set(['webhooks.schema.json']);
/** Files a start needs besides each package's `main`. */
const EXTRA_OUTPUTS = ['service/dist/ui/index.html', 'service/dist/ui/redoc.standalone.js'];

/**
 * The newest modification time (ms) of the files under `path`, skipping dependencies, build output and dot-files.
 * Folders' own times are left out: a build that makes dist/ changes its parent folder's.
 */
function newestUnder(path) {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules' || entry.name === 'dist') continue;
    if (GENERATED.has(entry.name)) continue;
    newest = Math.max(newest, newestUnder(join(path, entry.name)));
  }
  return newest;
}

/** The reason to build, or null when the last build is newer than every source and left every output. */
function reasonToBuild() {
  if (!existsSync(STAMP)) return 'first start after npm ci';
  const outputs = [
    ...workspaces.map((folder) => join(folder, require(join(ROOT, folder, 'package.json')).main)),
    ...EXTRA_OUTPUTS,
  ];
  if (outputs.some((output) => !existsSync(join(ROOT, output)))) return 'a built file is missing';
  const inputs = [...ROOT_INPUTS, ...workspaces].map((path) => newestUnder(join(ROOT, path)));
  return Math.max(...inputs) > statSync(STAMP).mtimeMs ? 'sources changed since the last build' : null;
}

const reason = reasonToBuild();
if (reason !== null) {
  // Stamped with the time the build started: a file saved while it runs is seen by the next start.
  const started = new Date();
  process.stderr.write(`Building jobhooks (${reason}); this takes a minute the first time...\n`);
  const npm = process.env.npm_execpath;
  const build = npm
    ? spawnSync(process.execPath, [npm, 'run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) {
    process.stderr.write('The build failed (see above); nothing was started.\n');
    process.exit(build.status ?? 1);
  }
  mkdirSync(join(STAMP, '..'), { recursive: true });
  writeFileSync(STAMP, '');
  utimesSync(STAMP, started, started);
}

process.argv = [process.argv[0], join(ROOT, 'service', 'bin', 'jobhooks.js'), 'start', ...process.argv.slice(2)];
require('../service/bin/jobhooks.js');
