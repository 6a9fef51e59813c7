// After `tsc -b`: bundles the provider program (src/program.ts and every module it imports) into one CommonJS
// file, dist/provider-program.js, which `install` lays out in Terraform's mirror. It needs only `node`: no
// package.json or node_modules around it. Its bytes depend only on the sources and esbuild's version, so the
// checksum `terraform init` records is the same on every machine: the build fails if a path of this machine
// got in.
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { buildSync } = require('esbuild');
const { engines, version } = require('./package.json');

const minimum = /^>=(\d+)\.(\d+)$/.exec(engines.node);
if (!minimum) throw new Error(`build-program: engines.node must read ">=MAJOR.MINOR", not "${engines.node}"`);
const [, major, minor] = minimum;

// Runs before anything else, in syntax every Node parses: on a Node too old, say so on stdout, which Terraform
// shows as "Unrecognized remote plugin message: ..." (what a plugin writes to stderr before its handshake is
// seen only with TF_LOG).
const versionCheck = `'use strict';
// The jobhooks Terraform provider ${version} (dbt-labs/dbtcloud), bundled with everything it needs but node.
var jobhooksNode = process.versions.node.split('.').map(Number);
if (jobhooksNode[0] < ${major} || (jobhooksNode[0] === ${major} && jobhooksNode[1] < ${minor})) {
  process.stdout.write('The jobhooks Terraform provider needs Node.js ${major}.${minor} or later, and "node" on PATH is ' + process.version + ' (' + process.execPath + '): install a newer Node.js.\\n');
  process.exit(1);
}`;

const outfile = join(__dirname, 'dist', 'provider-program.js');
buildSync({
  absWorkingDir: __dirname,
  entryPoints: ['src/program.ts'],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  // Old enough that an outdated Node still parses the file and reaches the version check above.
  target: 'node16',
  banner: { js: versionCheck },
  // Smaller (it is copied once per platform); names kept, since some libraries read constructor names.
  minify: true,
  keepNames: true,
  legalComments: 'none',
  charset: 'utf8',
  logLevel: 'warning',
});

const program = readFileSync(outfile, 'utf8');
for (const local of [__dirname, join(__dirname, '..', '..'), require('node:os').homedir()]) {
  if (program.includes(`${local}/`)) throw new Error(`build-program: dist/provider-program.js names ${local}`);
}
