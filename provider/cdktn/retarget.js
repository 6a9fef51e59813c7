// After `tsc -b`: the compiled constructs import `cdktf`; this package is for CDK Terrain, so point each of
// those imports at `cdktn`. Fails the build when an import it expects is not there, rather than shipping one;
// silent when it succeeds (a build prints only what needs a person).
'use strict';
const { readdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const dist = join(__dirname, 'dist');
/** Every way compiled code names a module: require("x"), from "x", import("x") (in declarations). */
const IMPORT = /(require\(|from |import\()(["'])cdktf(\/[^"']*)?\2/g;
const CDKTN = /(require\(|from )(["'])cdktn\2/;
for (const file of readdirSync(dist)) {
  if (!/\.(js|d\.ts)$/.test(file)) continue;
  const path = join(dist, file);
  const text = readFileSync(path, 'utf8');
  const next = text.replace(IMPORT, (_match, head, quote, rest) => `${head}${quote}cdktn${rest ?? ''}${quote}`);
  if (next !== text) writeFileSync(path, next);
}
// Any quoted 'cdktf' module name left (a form the rewrite does not know) would ship a package that loads cdktf.
const LEFT_OVER = /(["'])cdktf(\/[^"']*)?\1/;
for (const file of readdirSync(dist).filter((name) => /\.(js|d\.ts)$/.test(name))) {
  if (LEFT_OVER.test(readFileSync(join(dist, file), 'utf8'))) {
    throw new Error(`retarget: dist/${file} still names the cdktf module after the rewrite.`);
  }
}
for (const file of ['webhook.js', 'provider.js', 'endpoint-resource.js', 'endpoint-resource.d.ts', 'provider.d.ts']) {
  if (!CDKTN.test(readFileSync(join(dist, file), 'utf8'))) {
    throw new Error(`retarget: dist/${file} does not import cdktn after the rewrite; the build output changed shape.`);
  }
}
