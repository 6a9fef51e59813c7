// Import layers of the service, and the borders between the packages: `npm run check:layers`.
// Reference: https://github.com/sverweij/dependency-cruiser/blob/main/doc/rules-reference.md
//
// service/src is layered, lowest first. A module may import its own folder and the folders BEFORE it in this
// list, never one after it. A rename of a layer's folder is a one-word change here.
const LAYERS = [
  'core', //          clock, errors, ids, random: imports nothing of the service
  'domain', //        plain record types and the vocabulary: account, webhook, event, delivery, attempt
  'store', //         persistence: store/sqlite and store/postgres behind one interface, and the plans they share
  'security',
  'events',
  'delivery',
  'webhooks',
  'accounts',
  'observability',
  'http',
];
// Above every layer: the files directly in service/src (wiring.ts, main.ts, config.ts, ...) and cli/, which
// may import anything of the service. Nothing below them may import them.
const TOP = ['^service/src/[^/]+$', '^service/src/cli/'];
// The browser app: it stands apart from the layers (see the ui-* rules).
const UI = '^service/src/ui/';

const folder = (layer) => `^service/src/${layer}/`;

const layerRules = LAYERS.map((layer, index) => {
  const lower = LAYERS.slice(0, index).map((name) => `${name}/`);
  const higher = [...LAYERS.slice(index + 1).map((name) => `${name}/`), 'service/src/*.ts', 'cli/'];
  return {
    name: `layer-${layer}`,
    severity: 'error',
    comment:
      `${layer}/ is layer ${index + 1} of service/src (${LAYERS.join(' < ')} < service/src/*.ts and cli/). ` +
      `A module in ${layer}/ may import only ${layer}/ itself` +
      (lower.length > 0 ? ` and the lower layers ${lower.join(', ')}` : ' (it is the lowest layer)') +
      `, never a higher one: ${higher.join(', ')}. Imports point downwards: move what both sides need ` +
      `down into ${layer}/${index > 0 ? ' or lower' : ''}, or have the higher layer pass it in ` +
      '(wiring.ts connects the layers).',
    from: { path: folder(layer) },
    to: { path: [...LAYERS.slice(index + 1).map(folder), ...TOP] },
  };
});

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'store-backends-apart',
      severity: 'error',
      comment:
        'service/src/store/sqlite and service/src/store/postgres are two implementations of store/store.ts: ' +
        'neither imports the other. What both need (the row mappers, the plans of a transaction, write-apart) ' +
        'lives in service/src/store/ itself, where both import it.',
      from: { path: '^service/src/store/(sqlite|postgres)/' },
      to: { path: '^service/src/store/(sqlite|postgres)/', pathNot: '^service/src/store/$1/' },
    },
    {
      name: 'service-folder-not-in-layers',
      severity: 'error',
      comment:
        'This folder of service/src is not in the LAYERS list of .dependency-cruiser.cjs, so no layer rule ' +
        'checks it. Put the code in one of the layers, or add the folder to LAYERS at its place in the order ' +
        '(renaming a folder: rename it in LAYERS too).',
      from: {},
      to: { path: `^service/src/(?!(${[...LAYERS, 'cli', 'ui'].join('|')})/)[^/]+/` },
    },
    {
      name: 'ui-imports-only-ui-and-the-contract',
      severity: 'error',
      comment:
        'service/src/ui/ is the browser app, bundled on its own: it may import only ui/ itself and the ' +
        "contract of the client package ('@jobhooks/client/contract...'), nothing else of the service, of " +
        'node or of npm. Put what the UI needs in the contract (provider/client/src/contract).',
      from: { path: UI },
      to: { pathNot: [UI, '^(node_modules/)?@jobhooks/client/(dist/)?contract([./]|$)'] },
    },
    {
      name: 'nothing-imports-ui',
      severity: 'error',
      comment:
        'service/src/ui/ is the browser app: the service serves its build (dist/ui) as files and imports none ' +
        'of its modules. What both need belongs in the contract of @jobhooks/client.',
      from: { pathNot: UI },
      to: { path: UI },
    },
    {
      name: 'client-imports-no-other-package',
      severity: 'error',
      comment:
        'provider/client (@jobhooks/client) is the bottom package: the service and every provider import it, ' +
        'so it imports nothing from service/ nor from another provider package, by path or by name.',
      from: { path: '^provider/client/' },
      to: {
        path: ['^service/', '^provider/(?!client/)', '^(node_modules/)?(jobhooks(/|$)|@jobhooks/(?!client(/|$)))'],
      },
    },
    {
      name: 'provider-not-to-service',
      severity: 'error',
      comment:
        'The provider packages (provider/*) talk to the service over HTTP only, through @jobhooks/client: ' +
        'they import nothing from service/, by path or by the package name jobhooks.',
      from: { path: '^provider/' },
      to: { path: ['^service/', '^(node_modules/)?jobhooks(/|$)'] },
    },
    {
      name: 'dbt-imports-only-the-client',
      severity: 'error',
      comment:
        "provider/dbt (@jobhooks/dbt, jobhooks-dbt) runs in a dbt project's CI with nothing else of jobhooks " +
        'installed: it imports only itself and @jobhooks/client (by name), never the service, another provider ' +
        "package, nor the service's dependencies.",
      from: { path: '^provider/dbt/' },
      to: {
        path: [
          '^service/',
          '^provider/(?!dbt/)',
          '^(node_modules/)?(jobhooks(/|$)|@jobhooks/(?!client(/|$)))',
          '^(node_modules/)?(fastify|better-sqlite3|pg|undici)(/|$)',
        ],
      },
    },
    {
      name: 'service-imports-client-by-name',
      severity: 'error',
      comment:
        "The service imports the client package by its name ('@jobhooks/client' or " +
        "'@jobhooks/client/contract...'), never by a relative path into provider/: the published service " +
        'has no provider/ folder beside it.',
      from: { path: '^service/' },
      to: { path: '^provider/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'This import is part of a cycle (type-only imports count). Break it: move what both modules need ' +
        'into a third module lower down, or pass it in instead of importing it.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    // node_modules is not cruised (its packages stay in the graph, as leaves: the ui rule needs them); dist/ is
    // the compiled output of the packages' src/.
    doNotFollow: { path: ['node_modules'] },
    exclude: { path: ['^(service|provider/[^/]+)/dist/'] },
    // Type-only imports (`import type`) count, for the layers and for the cycles.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    // The workspace packages are symlinks in node_modules: keep their node_modules/@jobhooks/... path rather
    // than following the symlink into provider/, so '@jobhooks/client' stays an external package (which also
    // tells it apart from a relative import into provider/). Their `exports` point into dist/: before a build
    // they do not resolve, and they are then kept by name ('@jobhooks/client/contract'), which is fine, as
    // there is no rule against unresolvable modules (tsc reports those).
    preserveSymlinks: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['types', 'import', 'require', 'node', 'default'],
    },
    skipAnalysisNotInRules: true,
  },
};
