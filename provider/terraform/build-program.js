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

const outfile = join(__dirname, 'dist', 'provider-program.js');
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
};
/**
 * Bundles one entry point. src/code-cache.ts runs the program in a vm.Script, where import() rejects (Node 20 has no
 * stable module loader to give it), so an import() that esbuild leaves in the output (of a module it does not
 * bundle: it turns the others into require) fails the build rather than a user's `terraform plan`.
 */
function bundle(entryPoint, file) {
  const { metafile } = buildSync({
    ...options,
    entryPoints: [entryPoint],
    outfile: file,
    banner: { js: banner },
    metafile: true,
  });
  for (const output of Object.values(metafile.outputs)) {
    const dynamic = output.imports.filter((imported) => imported.kind === 'dynamic-import');
    if (dynamic.length > 0)
      throw new Error(
        `build-program: ${file} calls import() of ${dynamic.map((d) => d.path).join(', ')}, which the code cache cannot run`,
      );
  }
}

bundle('src/program.ts', outfile);
// What the executable in the mirror runs: it compiles the provider beside it through a code cache.
const startFile = join(__dirname, 'dist', 'provider-start.js');
bundle('src/program-start.ts', startFile);

for (const file of [outfile, startFile]) {
  const program = readFileSync(file, 'utf8');
  for (const local of [__dirname, join(__dirname, '..', '..'), require('node:os').homedir()]) {
    if (program.includes(`${local}/`)) throw new Error(`build-program: ${file} names ${local}`);
  }
}
