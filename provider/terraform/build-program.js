// After `tsc -b`: bundles the provider program (src/program.ts and every module it imports) into one CommonJS
// file, dist/provider-program.js, which `install` lays out in Terraform's mirror. It needs only `node`: no
// package.json or node_modules around it. Its bytes depend only on the sources and esbuild's version, so the
// checksum `terraform init` records is the same on every machine: the build fails if a path of this machine
// got in.
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { buildSync } = require('esbuild');
const { version } = require('./package.json');

// The sh line in front of it (src/mirror.ts) checks the Node version before node reads this file.
const banner = `'use strict';
// The jobhooks Terraform provider ${version} (dbt-labs/dbtcloud), bundled with everything it needs but node.`;

const options = {
  absWorkingDir: __dirname,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // Smaller (it is copied once per platform); names kept, since some libraries read constructor names.
  minify: true,
  keepNames: true,
  legalComments: 'none',
  charset: 'utf8',
  logLevel: 'warning',
  // src/code-cache.ts runs the program in a vm.Script, where import() rejects (no module loader is given to it, as
  // Node 20's is still experimental there): every import() a dependency makes, of a module the bundle leaves out or
  // of a name computed at run time, is written as require(), which the script is given.
  supported: { 'dynamic-import': false },
};

/** Bundles the program and the start file, and checks that no path of this machine got into them. */
function build() {
  const outfile = join(__dirname, 'dist', 'provider-program.js');
  buildSync({ ...options, entryPoints: ['src/program.ts'], outfile, banner: { js: banner } });
  // What the executable in the mirror runs: it compiles the provider beside it through a code cache.
  const startFile = join(__dirname, 'dist', 'provider-start.js');
  buildSync({ ...options, entryPoints: ['src/program-start.ts'], outfile: startFile, banner: { js: banner } });

  for (const file of [outfile, startFile]) {
    const program = readFileSync(file, 'utf8');
    for (const local of [__dirname, join(__dirname, '..', '..'), require('node:os').homedir()]) {
      if (program.includes(`${local}/`)) throw new Error(`build-program: ${file} names ${local}`);
    }
  }
}

// Required (by a test), it only gives the options the program is bundled with.
if (require.main === module) build();
module.exports = { bundleOptions: options };
