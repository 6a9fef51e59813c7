// A real npm registry for the package tests: Verdaccio on 127.0.0.1 (a free port), storing in the folder given,
// serving the jobhooks packages published to it and every other package from the default registry (its
// uplink). Prints its URL on stdout once it listens; runs until stopped. Used by `.ci/run` (one registry for the
// whole run) and by test/support/registry.ts (a run of the package tests on its own).
//   node test/support/registry-server.js FOLDER [UPLINK_URL]
'use strict';
const { mkdirSync } = require('node:fs');
const { join, resolve } = require('node:path');
const { runServer } = require('verdaccio');

const [folder, uplink = 'https://registry.npmjs.org/'] = process.argv.slice(2);
if (folder === undefined) {
  process.stderr.write('Usage: node test/support/registry-server.js FOLDER [UPLINK_URL]\n');
  process.exit(2);
}
const root = resolve(folder);
mkdirSync(join(root, 'storage'), { recursive: true });

/** Our packages only from what was published here, never from the uplink (a public namesake would mix in). */
const ours = { access: '$all', publish: '$authenticated', unpublish: '$authenticated' };
const config = {
  self_path: join(root, 'config.yaml'),
  config_path: join(root, 'config.yaml'),
  storage: join(root, 'storage'),
  auth: { htpasswd: { file: join(root, 'htpasswd'), max_users: 1000 } },
  uplinks: { default: { url: uplink, timeout: '60s', max_fails: 5 } },
  packages: { jobhooks: ours, '@jobhooks/*': ours, '**': { access: '$all', proxy: 'default' } },
  web: { enable: false },
  log: { type: 'stdout', format: 'pretty', level: 'error' },
  max_body_size: '100mb',
};

runServer(config).then((server) => {
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`http://127.0.0.1:${server.address().port}/\n`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
});
