// `tsx bench/profile-summary.ts FILE.cpuprofile [N] [--total]`: the N functions with the most self time in a
// V8 CPU profile (as `npm run bench -- --profile=DIR` writes them), or with `--total` the most time including
// what they call, each as a share of all samples.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url === '' ? '' : ` ${relative(process.cwd(), url.replace(/^file:\/\//, ''))}:${lineNumber + 1}`;
  return `${functionName || '(anonymous)'}${where}`;
}

/** Sample counts by function: of the sampled frame alone, or of every distinct function on its stack. */
function countSamples(profile: CpuProfile, inclusive: boolean): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const counts = new Map<string, number>();
  for (const id of profile.samples) {
    const names = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = inclusive ? parentOf.get(at) : undefined)
      names.add(frameName(byId.get(at)!));
    for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

function main(): void {
  const args = process.argv.slice(2);
  const inclusive = args.includes('--total');
  const [file, count = '25'] = args.filter((arg) => arg !== '--total');
  if (file === undefined) throw new Error('usage: tsx bench/profile-summary.ts FILE.cpuprofile [N] [--total]');
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const total = profile.samples.length;
  const top = [...countSamples(profile, inclusive)].sort((a, b) => b[1] - a[1]).slice(0, Number(count));
  process.stdout.write(`${file}: ${total} samples, ${inclusive ? 'total' : 'self'} time\n`);
  for (const [name, samples] of top)
    process.stdout.write(`${((100 * samples) / total).toFixed(1).padStart(5)}%  ${name}\n`);
}

main();
