// The provider as a Terraform filesystem mirror holds it: one folder per platform under
// HOST/NAMESPACE/TYPE/VERSION, each with the executable file Terraform starts and the program it runs.
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROGRAM_FILE_NAME, START_FILE_NAME } from './program-file';

/**
 * The platforms laid out, each with the same bytes (Node runs the same program on each of them): their packages
 * have one checksum, so a lock file written on any one platform, by `install` or by a plain `terraform init`,
 * holds on every other.
 */
export const TERRAFORM_PLATFORMS = ['darwin_amd64', 'darwin_arm64', 'linux_amd64', 'linux_arm64'] as const;
export type TerraformPlatform = (typeof TERRAFORM_PLATFORMS)[number];

/** The package root: src/ (under ts-jest) and dist/ both sit directly under it. */
const PACKAGE_ROOT = join(__dirname, '..');

/** The bundled program (build-program.js): the provider and every library it uses, in one file. */
export const PROGRAM_FILE = join(PACKAGE_ROOT, 'dist', PROGRAM_FILE_NAME);
/** What the executable runs after its sh line: the program beside it, through the code cache. */
const START_FILE = join(PACKAGE_ROOT, 'dist', START_FILE_NAME);

/** The oldest Node.js the package supports, from its package.json ("engines": { "node": ">=20.19" }). */
export function supportedNode(): { major: number; minor: number } {
  const { engines } = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
    engines: { node: string };
  };
  const minimum = /^>=\s*(\d+)\.(\d+)$/.exec(engines.node);
  if (!minimum) throw new Error(`engines.node must read ">=MAJOR.MINOR", not "${engines.node}"`);
  return { major: Number(minimum[1]), minor: Number(minimum[2]) };
}

/**
 * What `node -e` runs before the program: the version check, in syntax every Node parses (a Node too old to
 * parse the program would otherwise fail with a SyntaxError Terraform never shows), written with writeSync so
 * that it is out before the exit; then the program itself, through require(), which loads a file of any name as
 * CommonJS even below a package.json with "type": "module" (`node FILE` refuses a FILE named *.0 there).
 * No single quote: it sits between single quotes in the sh line.
 */
function loader({ major, minor }: { major: number; minor: number }): string {
  const tooOld = `"The jobhooks Terraform provider needs Node.js ${major}.${minor} or later, and \\"node\\" on PATH is "+process.version+" ("+process.execPath+"): install a newer Node.js.\\n"`;
  return [
    'var v=process.versions.node.split(".").map(Number);',
    `if(v[0]<${major}||v[0]==${major}&&v[1]<${minor}){require("fs").writeSync(1,${tooOld});process.exit(1)}`,
    'require(require("path").resolve(process.argv[1]))',
  ].join('');
}

/**
 * The executable Terraform starts, the same bytes on every platform: a line of sh that has `node` load the rest
 * of the file (and, when there is no node, prints why on stdout, which Terraform shows as "Unrecognized remote
 * plugin message: ..."), then `program`. In JavaScript the sh line is a string and a comment.
 */
export function executableFor(program: string, node = supportedNode()): string {
  const noNode = `The jobhooks Terraform provider needs Node.js ${node.major}.${node.minor} or later on PATH, and there is no node on PATH.`;
  return [
    '#!/bin/sh',
    `':' //; command -v node >/dev/null 2>&1 && exec node -e '${loader(node)}' "$0" "$@"; echo "${noNode}"; exit 1`,
    program,
  ].join('\n');
}

export interface MirrorLayout {
  /** The full address, e.g. registry.terraform.io/dbt-labs/dbtcloud. */
  address: string;
  type: string;
  version: string;
}

/**
 * Writes every platform's package (the same two files) under mirrorDir: the executable, whose start runs the
 * program beside it, kept apart so that a start compiles only the program and can take it from the code cache
 * (code-cache.ts). Returns the executables' paths, by platform.
 */
export function layOutMirror(mirrorDir: string, layout: MirrorLayout): Record<TerraformPlatform, string> {
  const executableText = executableFor(readFileSync(START_FILE, 'utf8'));
  const program = readFileSync(PROGRAM_FILE);
  const written = {} as Record<TerraformPlatform, string>;
  for (const platform of TERRAFORM_PLATFORMS) {
    const packageDir = join(mirrorDir, layout.address, layout.version, platform);
    // Emptied first: Terraform's checksum covers every file in the folder, so one left by another release (of
    // another layout) would make it differ from the same release's elsewhere.
    rmSync(packageDir, { recursive: true, force: true });
    mkdirSync(packageDir, { recursive: true });
    writeFileSync(join(packageDir, PROGRAM_FILE_NAME), program);
    const executable = join(packageDir, `terraform-provider-${layout.type}_v${layout.version}`);
    writeFileSync(executable, executableText);
    chmodSync(executable, 0o755);
    written[platform] = executable;
  }
  return written;
}

/** The provider addresses a mirror folder holds (its HOST/NAMESPACE/TYPE folders), sorted. */
export function addressesIn(mirrorDir: string): string[] {
  const below = (dir: string) =>
    readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  return below(mirrorDir)
    .flatMap((host) =>
      below(join(mirrorDir, host)).flatMap((namespace) =>
        below(join(mirrorDir, host, namespace)).map((type) => `${host}/${namespace}/${type}`),
      ),
    )
    .sort();
}

/**
 * Lays the current program out again for every address and version a mirror already holds (their folders
 * HOST/NAMESPACE/TYPE/VERSION), so that none keeps an older executable; returns them as "ADDRESS VERSION".
 */
export function refreshMirror(mirrorDir: string): string[] {
  return addressesIn(mirrorDir).flatMap((address) =>
    readdirSync(join(mirrorDir, address), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && /^\d+\.\d+\.\d+$/.test(entry.name))
      .map((entry) => {
        layOutMirror(mirrorDir, { address, type: address.split('/').pop()!, version: entry.name });
        return `${address} ${entry.name}`;
      }),
  );
}
