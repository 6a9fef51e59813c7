// The Terraform provider's compiled-code cache: a start after the first runs the program from it, a cache that is
// damaged, of another program, or in a folder others may write is not used, and the program runs the same either way.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type BuildOptions, buildSync } from 'esbuild';
import { codeCacheDir } from '../../provider/terraform/src/code-cache';

// Each start is a process of its own, as Terraform's are: within one process V8 keeps what it compiled and never
// reads the cache again. The starts run the built module (dist/), as the program does.
const CODE_CACHE = resolve(__dirname, '..', '..', 'provider', 'terraform', 'dist', 'code-cache.js');
const FILE = '/opt/provider/provider-program.js';

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'jobhooks-code-cache-'));
  dir = join(root, 'cache', 'jobhooks', 'terraform-provider');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A program that prints what it ran as, and uses Node's require, as the provider does. */
const program = (answer: number) => `
  const { join } = require('node:path');
  process.stdout.write(JSON.stringify({ answer: ${answer}, file: join(__dirname, 'x'), filename: __filename }) + '\\n');
`;

interface Start {
  fromCache: boolean;
  ran: unknown;
}

/**
 * One start in a new process: runs `source` through the cache in `dir`, then saves, as the program does at exit;
 * `asUid`, when given, is the user id the start takes itself for.
 */
function start(source: string, now?: number, asUid?: number): Start {
  const script = `${asUid === undefined ? '' : `process.getuid = () => ${asUid};`}
    const { runWithCodeCache } = require(${JSON.stringify(CODE_CACHE)});
    const run = runWithCodeCache(process.env.SOURCE, ${JSON.stringify(FILE)}, process.env.DIR);
    run.save(${now ?? 'undefined'});
    process.stdout.write(JSON.stringify({ fromCache: run.fromCache }));`;
  const result = spawnSync(process.execPath, ['-e', script], {
    env: { PATH: process.env.PATH, SOURCE: source, DIR: dir },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`the start failed: ${result.stderr}`);
  const [ran, outcome] = result.stdout.trim().split('\n');
  return { ...(JSON.parse(outcome!) as { fromCache: boolean }), ran: JSON.parse(ran!) };
}

const entries = () => readdirSync(dir);
const ran = (answer: number) => ({ answer, file: '/opt/provider/x', filename: FILE });

test('the first start compiles and saves; the next runs from the cache, with the same result', () => {
  expect(start(program(42))).toEqual({ fromCache: false, ran: ran(42) });
  const [entry, ...others] = entries();
  expect(others).toEqual([]);
  expect(entry).toMatch(/^[0-9a-f]{64}\.v8$/);
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  expect(statSync(join(dir, entry!)).mode & 0o777).toBe(0o600);
  expect(start(program(42))).toEqual({ fromCache: true, ran: ran(42) });
});

test('another program, even of the same length, gets an entry of its own, never the code of the first', () => {
  start(program(1));
  // V8 itself would take the first program's code for it: it checks a source by its length only.
  expect(program(2)).toHaveLength(program(1).length);
  expect(start(program(2))).toEqual({ fromCache: false, ran: ran(2) });
  expect(entries()).toHaveLength(2);
  expect(start(program(2))).toEqual({ fromCache: true, ran: ran(2) });
});

test('an entry V8 refuses (here: cut short) is compiled past, and the save replaces it', () => {
  start(program(7));
  const [entry] = entries();
  truncateSync(join(dir, entry!), 64);
  expect(start(program(7))).toEqual({ fromCache: false, ran: ran(7) });
  expect(statSync(join(dir, entry!)).size).toBeGreaterThan(64);
  expect(start(program(7))).toEqual({ fromCache: true, ran: ran(7) });
});

test('a folder others may write to is neither read nor written', () => {
  start(program(3));
  chmodSync(dir, 0o777);
  const [entry] = entries();
  utimesSync(join(dir, entry!), new Date(0), new Date(0));
  expect(start(program(3))).toEqual({ fromCache: false, ran: ran(3) });
  expect(entries()).toEqual([entry]);
  expect(statSync(join(dir, entry!)).mtimeMs).toBe(0);
});

test("a start as another user than the home's (sudo keeping HOME) makes no folder in it", () => {
  const theirs = join(root, 'cache');
  mkdirSync(theirs);
  const someoneElse = statSync(theirs).uid + 1;
  expect(start(program(4), undefined, someoneElse)).toEqual({ fromCache: false, ran: ran(4) });
  expect(readdirSync(theirs)).toEqual([]);
});

test('a folder that cannot be made leaves the program running, uncached', () => {
  writeFileSync(join(root, 'cache'), 'a file where the folder would go');
  expect(start(program(5))).toEqual({ fromCache: false, ran: ran(5) });
  expect(start(program(5))).toEqual({ fromCache: false, ran: ran(5) });
});

test('a save removes other entries written over 30 days ago, and keeps the recent ones', () => {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const now = Date.now();
  const aged = (name: string, days: number) => {
    const date = new Date(now - days * 24 * 3600 * 1000);
    writeFileSync(join(dir, name), 'x');
    utimesSync(join(dir, name), date, date);
  };
  aged(`${'a'.repeat(64)}.v8`, 31);
  aged(`${'b'.repeat(64)}.v8`, 29);
  start(program(9), now);
  const left = entries();
  expect(left).toHaveLength(2);
  expect(left).toContain(`${'b'.repeat(64)}.v8`);
  expect(left).not.toContain(`${'a'.repeat(64)}.v8`);
});

test("an import() in the bundled program runs: the bundle writes it as require(), which the cache's script is given", () => {
  // A vm.Script rejects import() (it is given no module loader): the bundle must leave none, of a module it leaves out
  // or of a name computed at run time.
  const { bundleOptions } = require('../../provider/terraform/build-program.js') as { bundleOptions: BuildOptions };
  const source = "const name = 'node:os'; import(name).then((os) => process.stdout.write(typeof os.cpus));";
  const [bundled] = buildSync({
    ...bundleOptions,
    stdin: { contents: source, loader: 'js', resolveDir: root },
    write: false,
  }).outputFiles;
  const script = `require(${JSON.stringify(CODE_CACHE)}).runWithCodeCache(process.env.SOURCE, ${JSON.stringify(FILE)}, null);`;
  const result = spawnSync(process.execPath, ['-e', script], {
    env: { PATH: process.env.PATH, SOURCE: bundled!.text },
    encoding: 'utf8',
  });
  expect(result.stderr).toBe('');
  expect(result.stdout).toBe('function');
});

test('errors of the program are its own', () => {
  expect(() => start('throw new Error("the program failed")')).toThrow('the program failed');
});

test('the folder: $XDG_CACHE_HOME when absolute, else ~/.cache; none without a home', () => {
  expect(codeCacheDir({ XDG_CACHE_HOME: '/xdg', HOME: '/home/u' })).toBe('/xdg/jobhooks/terraform-provider');
  expect(codeCacheDir({ XDG_CACHE_HOME: 'relative', HOME: '/home/u' })).toBe(
    '/home/u/.cache/jobhooks/terraform-provider',
  );
  expect(codeCacheDir({ HOME: '/home/u' })).toBe('/home/u/.cache/jobhooks/terraform-provider');
  expect(codeCacheDir({})).toBeNull();
});
