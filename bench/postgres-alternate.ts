// `npx tsx bench/postgres-alternate.ts --variant=NAME[:SETTING,...] ... [--rounds=N]`: the one-instance fan-out run of
// `npm run bench -- --postgres` (3,125 events to 16 webhooks after a warm-up of 313 events, its ceiling measured in
// the same run), once per variant in turn, on one durable cluster, for N rounds (4 by default), each round starting
// one variant further on, so that every variant runs first, last and between the others alike. A variant's settings
// are Node flags (`--single-threaded-gc`) or the instance's environment (`JOBHOOKS_DATABASE_POOL_SIZE=20`). On a
// shared 2-core machine one run's ratio moves by a third from run to run, so a change of a tenth is only seen in
// runs side by side; each run's line says where the machine's CPU went (bench/thread-cpu.ts).
import { startTestCluster } from '../test/support/postgres';
import { createDeliveryCeiling } from './ceiling';
import { DISPATCH_LIMITS, deliveryRunShape, INGEST_CONCURRENCY } from './delivery-run-shape';
import { median, ratio } from './load';
import { type Run, runWith } from './postgres-scale-out';
import { startBenchReceiver } from './receiver';
import type { ThreadCpu } from './thread-cpu';

/** The bench's own fan-out run (bench/delivery-run-shape.ts). */
const { webhooks: WEBHOOKS, events: EVENTS, warmUpDeliveries: WARM_UP_DELIVERIES } = deliveryRunShape(false);
/** The run and its ceiling are shaped by these: a variant setting them would be measured against another run. */
const SHAPING_SETTINGS = ['JOBHOOKS_DELIVERY_CONCURRENCY', 'JOBHOOKS_DELIVERY_CONCURRENCY_PER_ENDPOINT'];

/** A mistake in the command line: said in one sentence, with no stack trace. */
class UsageError extends Error {}

interface Variant {
  name: string;
  nodeFlags: string[];
  env: Record<string, string>;
}

const SETTING = /^[A-Z_][A-Z0-9_]*=/;

function variantOf(spec: string): Variant {
  const colon = spec.indexOf(':');
  const name = colon === -1 ? spec : spec.slice(0, colon);
  if (name === '' || name.startsWith('-') || name.includes('='))
    throw new UsageError(`--variant=${spec}: a variant starts with its name, then a colon and its settings.`);
  const variant: Variant = { name, nodeFlags: [], env: {} };
  // A comma starts a new setting only before a flag or a NAME=: a value may hold commas (a retry schedule).
  const settings = colon === -1 ? [] : spec.slice(colon + 1).split(/,(?=--|[A-Z_][A-Z0-9_]*=)/);
  for (const setting of settings.filter((s) => s !== '')) {
    if (setting.startsWith('--')) variant.nodeFlags.push(setting);
    else if (SETTING.test(setting)) {
      const key = setting.slice(0, setting.indexOf('='));
      if (SHAPING_SETTINGS.includes(key))
        throw new UsageError(`--variant=${spec}: set ${key} for the whole comparison, in the environment.`);
      variant.env[key] = setting.slice(key.length + 1);
    } else
      throw new UsageError(
        `--variant=${spec}: "${setting}" is neither a Node flag (--...) nor a setting (NAME=value).`,
      );
  }
  return variant;
}

function parseArguments(args: readonly string[]): { variants: Variant[]; rounds: number } {
  const variants: Variant[] = [];
  let rounds = 4;
  for (const arg of args) {
    if (arg.startsWith('--variant=')) variants.push(variantOf(arg.slice('--variant='.length)));
    else if (arg.startsWith('--rounds=')) rounds = Number(arg.slice('--rounds='.length));
    else throw new UsageError(`${arg}: the options are --variant=NAME[:SETTING,...] and --rounds=N.`);
  }
  if (variants.length < 2 || !Number.isInteger(rounds) || rounds < 1)
    throw new UsageError('Give two --variant=NAME[:SETTING,...] or more, and --rounds=N with N at least 1.');
  if (new Set(variants.map((v) => v.name)).size < variants.length)
    throw new UsageError('Give each variant its own name.');
  return { variants, rounds };
}

const HEADER = 'round  variant                per s  ceiling  ratio  PG µs  (µs per delivery; CPU seconds per second)';

function runLine(
  round: number,
  variant: string,
  run: Run,
  cpu: ThreadCpu,
  ceilingCpu: ThreadCpu,
  deliveries: number,
): string {
  const perDelivery = (share: number, of = cpu) => Math.round((share * of.seconds * 1e6) / deliveries);
  return (
    `${String(round + 1).padStart(5)}  ${variant.padEnd(20)} ${String(Math.round(run.perSecond)).padStart(7)} ` +
    `${String(Math.round(run.ceiling)).padStart(8)} ${ratio(run.perSecond, run.ceiling).toFixed(3).padStart(6)} ` +
    `${String(Math.round(run.perDelivery.cpuSeconds * 1e6)).padStart(6)}  main thread ${perDelivery(cpu.serviceMain)} µs ` +
    `(and ${cpu.serviceMainWaiting} s/s waiting for a core), other threads ${cpu.serviceOthers.join(' ') || 'none'} s/s, ` +
    `bench ${perDelivery(cpu.bench)} µs, machine idle ${cpu.idle} s/s; the ceiling's process ` +
    `${perDelivery(ceilingCpu.bench, ceilingCpu)} µs (${ceilingCpu.bench} s/s)`
  );
}

/** Round `round`'s order: the variants from the round's own one on, so each takes every place in turn. */
const orderOf = (variants: readonly Variant[], round: number) =>
  variants.map((_, i) => variants[(i + round) % variants.length]!);

async function main(): Promise<void> {
  const { variants, rounds } = parseArguments(process.argv.slice(2));
  const receiver = await startBenchReceiver();
  const cluster = startTestCluster({ durable: true, countStatements: true });
  const results = new Map<string, Run[]>(variants.map((v) => [v.name, []]));
  const ceiling = createDeliveryCeiling(DISPATCH_LIMITS.maxInFlight, WARM_UP_DELIVERIES);
  try {
    process.stdout.write(
      `${EVENTS} events x ${WEBHOOKS} webhooks, one instance on PostgreSQL, ${rounds} rounds\n${HEADER}\n`,
    );
    for (let round = 0; round < rounds; round += 1) {
      for (const variant of orderOf(variants, round)) {
        let threads: ThreadCpu | null = null;
        let ceilingThreads: ThreadCpu | null = null;
        const run = await runWith(cluster, 1, {
          receiver,
          webhooks: WEBHOOKS,
          events: EVENTS,
          warmUpDeliveries: WARM_UP_DELIVERIES,
          ingestConcurrency: INGEST_CONCURRENCY,
          ceiling: (requests, measure) => ceiling(receiver, requests, measure),
          onThreadCpu: (_run, cpu, _deliveries, part) => {
            if (part === 'ceiling') ceilingThreads = cpu;
            else threads = cpu;
          },
          nodeFlags: () => variant.nodeFlags,
          env: variant.env,
        });
        if (receiver.badSignatures() > 0) throw new Error(`${receiver.badSignatures()} deliveries had a bad signature`);
        results.get(variant.name)!.push(run);
        process.stdout.write(`${runLine(round, variant.name, run, threads!, ceilingThreads!, EVENTS * WEBHOOKS)}\n`);
      }
    }
    process.stdout.write('medians: variant, deliveries/s, ratio, PostgreSQL CPU µs per delivery\n');
    for (const [name, runs] of results)
      process.stdout.write(
        `  ${name.padEnd(20)} ${Math.round(median(runs.map((r) => r.perSecond)))}  ` +
          `${median(runs.map((r) => ratio(r.perSecond, r.ceiling))).toFixed(3)}  ` +
          `${Math.round(median(runs.map((r) => r.perDelivery.cpuSeconds * 1e6)))}\n`,
      );
  } finally {
    cluster.stop();
    await receiver.close();
  }
}

main().catch((error: unknown) => {
  if (error instanceof UsageError) process.stderr.write(`${error.message}\n`);
  else process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(error instanceof UsageError ? 2 : 1);
});
