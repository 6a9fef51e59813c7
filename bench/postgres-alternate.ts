// `npx tsx bench/postgres-alternate.ts --variant=NAME[:SETTING,...] ... [--rounds=N]`: the one-instance fan-out run of
// `npm run bench -- --postgres` (3,125 events to 16 webhooks after a warm-up of 313, its ceiling measured in the same
// run), once per variant in turn, on one durable cluster, for N rounds (4 by default), the order reversed every
// other round. A variant's settings are Node flags (`--single-threaded-gc`) or environment (`JOBHOOKS_X=1`) for the
// instance. On a shared 2-core machine one run's ratio moves by a fifth from run to run, so a change of a tenth is
// only seen in runs side by side; each run's line says where the machine's CPU went (bench/thread-cpu.ts).
import { loadConfig } from '../service/src/config';
import { startTestCluster } from '../test/support/postgres';
import { createDeliveryCeiling } from './ceiling';
import { ratio } from './load';
import { type Run, runWith } from './postgres-scale-out';
import { startBenchReceiver } from './receiver';
import type { ThreadCpu } from './thread-cpu';

const LIMITS = loadConfig(process.env).delivery;
const WEBHOOKS = Math.ceil(LIMITS.maxInFlight / LIMITS.maxInFlightPerWebhook);
const EVENTS = Math.ceil(50_000 / WEBHOOKS);
const WARM_UP_DELIVERIES = Math.ceil(5_000 / WEBHOOKS) * WEBHOOKS;

/** A mistake in the command line: said in one sentence, with no stack trace. */
class UsageError extends Error {}

interface Variant {
  name: string;
  nodeFlags: string[];
  env: Record<string, string>;
}

function variantOf(spec: string): Variant {
  const [name, settings = ''] = spec.split(/:(.*)/s);
  const variant: Variant = { name: name!, nodeFlags: [], env: {} };
  for (const setting of settings.split(',').filter((s) => s !== '')) {
    if (setting.startsWith('--')) variant.nodeFlags.push(setting);
    else if (/^[A-Z_][A-Z0-9_]*=/.test(setting))
      variant.env[setting.slice(0, setting.indexOf('='))] = setting.slice(setting.indexOf('=') + 1);
    else
      throw new UsageError(`--variant=${spec}: "${setting}" is neither a Node flag (--...) nor a setting (NAME=value)`);
  }
  return variant;
}

function parseArguments(): { variants: Variant[]; rounds: number } {
  const variants = process.argv.filter((arg) => arg.startsWith('--variant=')).map((arg) => variantOf(arg.slice(10)));
  const rounds = Number(process.argv.find((arg) => arg.startsWith('--rounds='))?.slice(9) ?? 4);
  if (variants.length < 2 || !Number.isInteger(rounds) || rounds < 1)
    throw new UsageError('Give two --variant=NAME[:SETTING,...] or more, and --rounds=N with N at least 1.');
  if (new Set(variants.map((v) => v.name)).size < variants.length)
    throw new UsageError('Give each variant its own name.');
  return { variants, rounds };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2 === 1 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

function runLine(round: number, variant: string, run: Run, cpu: ThreadCpu, deliveries: number): string {
  const perDelivery = (share: number) => Math.round((share * cpu.seconds * 1e6) / deliveries);
  return (
    `${String(round + 1).padStart(5)}  ${variant.padEnd(20)} ${String(Math.round(run.perSecond)).padStart(7)} ` +
    `${String(Math.round(run.ceiling)).padStart(8)} ${ratio(run.perSecond, run.ceiling).toFixed(3).padStart(6)} ` +
    `${String(Math.round(run.perDelivery.cpuSeconds * 1e6)).padStart(6)}   main ${perDelivery(cpu.serviceMain)} µs ` +
    `(${cpu.serviceMainWaiting} waiting), other threads ${cpu.serviceOthers.join(' ')}, bench ${perDelivery(cpu.bench)} µs, idle ${cpu.idle}`
  );
}

async function main(): Promise<void> {
  const { variants, rounds } = parseArguments();
  const receiver = await startBenchReceiver();
  const cluster = startTestCluster({ durable: true, countStatements: true });
  const results = new Map<string, Run[]>(variants.map((v) => [v.name, []]));
  try {
    process.stdout.write(
      `${EVENTS} events x ${WEBHOOKS} webhooks, one instance on PostgreSQL, ${rounds} rounds (the service's CPU per delivery by thread)\n` +
        'round  variant              per s  ceiling  ratio  PG µs\n',
    );
    for (let round = 0; round < rounds; round += 1) {
      for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
        let threads: ThreadCpu | null = null;
        const run = await runWith(cluster, 1, {
          receiver,
          webhooks: WEBHOOKS,
          events: EVENTS,
          warmUpDeliveries: WARM_UP_DELIVERIES,
          ingestConcurrency: 64,
          ceiling: createDeliveryCeiling(LIMITS.maxInFlight, WARM_UP_DELIVERIES).bind(null, receiver),
          onThreadCpu: (_run, cpu) => (threads = cpu),
          nodeFlags: () => variant.nodeFlags,
          env: variant.env,
        });
        results.get(variant.name)!.push(run);
        process.stdout.write(`${runLine(round, variant.name, run, threads!, EVENTS * WEBHOOKS)}\n`);
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
