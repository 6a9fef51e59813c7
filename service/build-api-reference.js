// After the web UI's bundle: puts Redoc's standalone bundle (the `redoc` dev dependency) beside it in dist/ui, for
// the API reference page at /api/reference, with its licence. Redoc renders everything from this one file; the
// one thing it would load from another host, the Redocly logo of its side menu, is cut here, so the page makes no
// request off this service and works offline. Fails the build when the bundle no longer has the shape this
// expects (a Redoc upgrade), rather than shipping a page that calls out.
'use strict';
const { copyFileSync, mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

const bundle = require.resolve('redoc/bundles/redoc.standalone.js');
const out = join(__dirname, 'dist', 'ui');
mkdirSync(out, { recursive: true });

/** The logo's address as the bundle spells it; an empty src makes Redoc drop the image (its onError). */
const LOGO = '"https://cdn.redoc.ly/redoc/logo-mini.svg"';
/** The map is not shipped (4 MB), so the line pointing at it goes too. */
const SOURCE_MAP = /\n\/\/# sourceMappingURL=redoc\.standalone\.js\.map\s*$/;

let text = readFileSync(bundle, 'utf8');
if (text.split(LOGO).length !== 2) {
  throw new Error(`build-api-reference: ${bundle} does not name ${LOGO} exactly once; check what else it loads.`);
}
text = text.replace(LOGO, '""').replace(SOURCE_MAP, '\n');
const remote = /["'`](https?:)?\/\/cdn\.[^"'`]*["'`]/.exec(text);
if (remote !== null) throw new Error(`build-api-reference: the Redoc bundle still loads ${remote[0]}.`);
writeFileSync(join(out, 'redoc.standalone.js'), text);
// The bundle's first line points at this file for the licences of what it bundles; Redoc's own is beside it.
copyFileSync(`${bundle}.LICENSE.txt`, join(out, 'redoc.standalone.js.LICENSE.txt'));
copyFileSync(join(dirname(bundle), '..', 'LICENSE'), join(out, 'redoc.LICENSE'));
