// Minimal stand-in for the Pulumi engine (`up` only): runs a program through @pulumi/pulumi's own cmd/run and its
// dynamic-provider host, no CLI needed.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type * as GrpcT from '@grpc/grpc-js';
import type * as StructPbT from 'google-protobuf/google/protobuf/struct_pb';
import type * as ResPbT from '@pulumi/pulumi/proto/resource_pb';
import type * as ResGrpcT from '@pulumi/pulumi/proto/resource_grpc_pb';
import type * as EngPbT from '@pulumi/pulumi/proto/engine_pb';
import type * as EngGrpcT from '@pulumi/pulumi/proto/engine_grpc_pb';
import type * as ProvPbT from '@pulumi/pulumi/proto/provider_pb';
import type * as ProvGrpcT from '@pulumi/pulumi/proto/provider_grpc_pb';

export interface ResourceState {
  urn: string;
  type: string;
  id: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
}
export interface StackState {
  resources: ResourceState[];
} // JSON-serializable: what a checkpoint would keep
export interface EngineStep {
  op: 'create' | 'update' | 'same' | 'delete';
  urn: string;
}
export interface PulumiRunOptions {
  projectDir: string;
  main: string;
  project: string;
  stack: string;
  config: Record<string, string>;
  secretConfigKeys?: string[];
  previous?: StackState;
  nodeArgs?: string[];
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}
export interface PulumiRunResult {
  state: StackState;
  steps: EngineStep[];
  stackOutputs: Record<string, unknown>;
  stdout: string;
  stderr: string;
}

type Props = Record<string, unknown>;
// Pulumi's wire marker for secrets (runtime/rpc.js specialSigKey / specialSecretSig). State keeps secrets marked,
// like a checkpoint does (unencrypted here); providers get revealed values, as the engine does for a provider
// whose ConfigureResponse says acceptSecrets=false (the dynamic host does).
const SIG = '4dabf18193072939515e22adb298388d';
const SECRET = '1b47061264138c4ac30d75fd1eb44270';
const isSecret = (v: unknown): boolean => typeof v === 'object' && v !== null && (v as Props)[SIG] === SECRET;
const asSecret = (v: unknown): Props => (isSecret(v) ? (v as Props) : { [SIG]: SECRET, value: v });
function reveal(v: unknown): unknown {
  if (isSecret(v)) return reveal((v as Props).value);
  if (Array.isArray(v)) return v.map(reveal);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, reveal(x)]));
  return v;
}
const revealProps = (v: Props | undefined): Props => reveal(v ?? {}) as Props;
const markSecrets = (v: Props, keys: Set<string>): Props =>
  Object.fromEntries(Object.entries(v).map(([k, x]) => [k, keys.has(k) ? asSecret(x) : x]));
const DYNAMIC_TYPE = /^pulumi-nodejs:dynamic(\/[^:]+)?:/; // dynamic/index.js: `pulumi-nodejs:dynamic${module ? `/${module}` : ""}:${type}`

// The generated stubs check `instanceof` against their own google-protobuf (a nested 3.x copy under @pulumi/pulumi
// when the top level has 4.x) and use their own grpc-js, so everything is loaded from the project's @pulumi/pulumi.
function loadPulumi(projectDir: string) {
  const projectRequire = createRequire(path.join(path.resolve(projectDir), 'package.json'));
  const pulumiDir = path.dirname(projectRequire.resolve('@pulumi/pulumi/package.json'));
  const r = createRequire(path.join(pulumiDir, 'package.json'));
  return {
    runEntry: projectRequire.resolve('@pulumi/pulumi/cmd/run'),
    hostEntry: projectRequire.resolve('@pulumi/pulumi/cmd/dynamic-provider'),
    grpc: r('@grpc/grpc-js') as typeof GrpcT,
    Struct: (r('google-protobuf/google/protobuf/struct_pb') as typeof StructPbT).Struct,
    res: r('./proto/resource_pb') as typeof ResPbT,
    resGrpc: r('./proto/resource_grpc_pb') as typeof ResGrpcT,
    eng: r('./proto/engine_pb') as typeof EngPbT,
    engGrpc: r('./proto/engine_grpc_pb') as typeof EngGrpcT,
    prov: r('./proto/provider_pb') as typeof ProvPbT,
    provGrpc: r('./proto/provider_grpc_pb') as typeof ProvGrpcT,
    Empty: (r('google-protobuf/google/protobuf/empty_pb') as typeof import('google-protobuf/google/protobuf/empty_pb'))
      .Empty,
  };
}

// Node 20.20's util.inspect(err, { colors: true }) loops until OOM on stack frames like
// `node_modules/@pulumi/resource.ts`
// (nodejs/node#64011), which source-map-support produces for every error in a Pulumi program, and cmd/run formats
// uncaught errors exactly that way; so the program gets a preload that drops colors for Errors (also no ANSI in
// stderr).
const INSPECT_FIX =
  'data:text/javascript,' +
  encodeURIComponent(
    'import u from "node:util"; const i = u.inspect; ' +
      'const f = function inspect(v, o, ...r) { return i(v, v instanceof Error && o && o.colors ? { ...o, colors: false } : o, ...r); }; ' +
      'Object.defineProperties(f, Object.getOwnPropertyDescriptors(i)); u.inspect = f;',
  );

type Unary = (req: unknown, cb: (err: GrpcT.ServiceError | null, res: unknown) => void) => void;
// Promisified unary call; the provider's own message (err.details) becomes the rejection message.
function call<Res>(client: GrpcT.Client, method: string, req: unknown): Promise<Res> {
  const fn = (client as unknown as Record<string, Unary>)[method]!;
  return new Promise((resolve, reject) =>
    fn.call(client, req, (err, res) => (err ? reject(new Error(err.details || err.message)) : resolve(res as Res))),
  );
}
// Adapts an async handler to grpc-js's callback style; failures are also remembered so the run rejects with them.
/** A gRPC handler from an async function: its answer, or its error, goes to the callback gRPC gave. */
function unary<Req, Res>(fn: (req: Req) => Promise<Res>, onError: (e: Error) => void) {
  return (c: GrpcT.ServerUnaryCall<Req, Res>, cb: GrpcT.sendUnaryData<Res>): void => {
    void fn(c.request).then(
      (r) => cb(null, r),
      (e: Error) => {
        onError(e);
        cb({ code: 2, details: e.message, message: e.message }, null);
      },
    );
  };
}

export async function runPulumiProgram(o: PulumiRunOptions): Promise<PulumiRunResult> {
  const m = loadPulumi(o.projectDir);
  const cwd = path.resolve(o.projectDir);
  const prev = new Map((o.previous?.resources ?? []).map((r) => [r.urn, r]));
  const slots: { res: ResourceState; op: EngineStep['op'] }[] = []; // registration order
  const replaced: ResourceState[] = [];
  const io = { stdout: '', stderr: '' };
  let stackOutputs: Props = {};
  let failure: Error | undefined;
  let rootUrn = '';
  const children: ChildProcess[] = [];
  const server = new m.grpc.Server();
  let provider: ProvGrpcT.ResourceProviderClient | undefined;
  const env = {
    ...process.env,
    ...o.env,
    PULUMI_NODEJS_PROJECT: o.project,
    PULUMI_NODEJS_STACK: o.stack,
    PULUMI_NODEJS_ORGANIZATION: 'organization',
  };
  const toStruct = (v: Props) => m.Struct.fromJavaScript(v as Record<string, StructPbT.JavaScriptValue>);
  const fail = (e: Error) => {
    failure ??= e;
  };

  // The host prints only its port on stdout (`console.log(port.toString())`) and needs an engine address as argv[2].
  let hostPromise: Promise<ProvGrpcT.ResourceProviderClient> | undefined;
  const host = () =>
    (hostPromise ??= (async () => {
      const child = spawn(process.execPath, [m.hostEntry, engineAddr], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      child.stderr!.on('data', (d: Buffer) => (io.stderr += d.toString()));
      const port = await new Promise<string>((resolve, reject) => {
        let buf = '';
        const onData = (d: Buffer) => {
          buf += d.toString();
          const nl = buf.indexOf('\n');
          if (nl < 0) return;
          child.stdout!.off('data', onData).on('data', (x: Buffer) => (io.stdout += x.toString()));
          io.stdout += buf.slice(nl + 1);
          resolve(buf.slice(0, nl).trim());
        };
        child.stdout!.on('data', onData);
        child.once('exit', (code) => reject(new Error(`dynamic provider host exited (${code}): ${io.stderr}`)));
      });
      provider = new m.provGrpc.ResourceProviderClient(`127.0.0.1:${port}`, m.grpc.credentials.createInsecure());
      // The dynamic host reads only `args` (throws without it); `variables` is filled too, as the engine does.
      const req = new m.prov.ConfigureRequest()
        .setArgs(toStruct(o.config))
        .setAcceptsecrets(true)
        .setAcceptresources(true);
      for (const [k, v] of Object.entries(o.config)) req.getVariablesMap().set(k, v);
      await call(provider, 'configure', req);
      return provider;
    })());

  async function registerResource(req: ResPbT.RegisterResourceRequest): Promise<ResPbT.RegisterResourceResponse> {
    const type = req.getType(),
      name = req.getName();
    // URN type is qualified by the parent chain, except below the root stack (as resource.NewURN does).
    const parentType = req.getParent() ? req.getParent().split('::')[2] : '';
    const qualified = parentType && parentType !== 'pulumi:pulumi:Stack' ? `${parentType}$${type}` : type;
    const urn = `urn:pulumi:${o.stack}::${o.project}::${qualified}::${name}`;
    const slot = slots.push({ res: { urn, type, id: '', inputs: {}, outputs: {} }, op: 'same' }) - 1;
    const news = (req.getObject()?.toJavaScript() ?? {}) as Props;
    const old = prev.get(urn);
    let res: ResourceState, op: EngineStep['op'];
    if (req.getCustom() && DYNAMIC_TYPE.test(type)) {
      const p = await host();
      const inSecret = new Set(Object.keys(news).filter((k) => isSecret(news[k])));
      const outSecret = new Set([...inSecret, ...req.getAdditionalsecretoutputsList()]);
      const check = await call<ProvPbT.CheckResponse>(
        p,
        'check',
        new m.prov.CheckRequest()
          .setUrn(urn)
          .setName(name)
          .setType(type)
          .setOlds(toStruct(revealProps(old?.inputs)))
          .setNews(toStruct(revealProps(news)))
          .setRandomseed(randomBytes(32)),
      );
      const failures = check.getFailuresList();
      if (failures.length)
        throw new Error(
          `${urn}: check failed: ${failures.map((f) => `${f.getProperty()}: ${f.getReason()}`).join('; ')}`,
        );
      const checked = (check.getInputs()?.toJavaScript() ?? {}) as Props;
      let id: string, outs: Props;
      op = 'create';
      if (old) {
        const diff = await call<ProvPbT.DiffResponse>(
          p,
          'diff',
          new m.prov.DiffRequest()
            .setId(old.id)
            .setUrn(urn)
            .setName(name)
            .setType(type)
            .setOlds(toStruct(revealProps(old.outputs)))
            .setNews(toStruct(checked))
            .setOldInputs(toStruct(revealProps(old.inputs))),
        );
        const C = m.prov.DiffResponse.DiffChanges;
        // DIFF_UNKNOWN (provider has no diff): fall back to comparing old and new inputs, as the engine does.
        const changed =
          diff.getChanges() === C.DIFF_UNKNOWN
            ? JSON.stringify(revealProps(old.inputs)) !== JSON.stringify(checked)
            : diff.getChanges() === C.DIFF_SOME;
        if (diff.getReplacesList().length)
          replaced.push(old); // replace: create new now, delete old at the end (deleteBeforeReplace ignored)
        else op = changed ? 'update' : 'same';
      }
      if (op === 'create') {
        const r = await call<ProvPbT.CreateResponse>(
          p,
          'create',
          new m.prov.CreateRequest().setUrn(urn).setName(name).setType(type).setProperties(toStruct(checked)),
        );
        [id, outs] = [r.getId(), (r.getProperties()?.toJavaScript() ?? {}) as Props];
      } else if (op === 'update') {
        const r = await call<ProvPbT.UpdateResponse>(
          p,
          'update',
          new m.prov.UpdateRequest()
            .setId(old!.id)
            .setUrn(urn)
            .setName(name)
            .setType(type)
            .setOlds(toStruct(revealProps(old!.outputs)))
            .setNews(toStruct(checked))
            .setOldInputs(toStruct(revealProps(old!.inputs))),
        );
        [id, outs] = [old!.id, (r.getProperties()?.toJavaScript() ?? {}) as Props];
      } else [id, outs] = [old!.id, old!.outputs];
      // Secretness of outputs follows same-named secret inputs plus additionalSecretOutputs (engine's annotateSecrets).
      res = { urn, type, id, inputs: markSecrets(checked, inSecret), outputs: markSecrets(outs, outSecret) };
    } else {
      // Stack, components and non-dynamic custom resources: recorded, no provider involved.
      op = !old ? 'create' : JSON.stringify(old.inputs) === JSON.stringify(news) ? 'same' : 'update';
      res = {
        urn,
        type,
        id: req.getCustom() ? (old?.id ?? randomUUID()) : '',
        inputs: news,
        outputs: old && op === 'same' ? old.outputs : news,
      };
    }
    slots[slot] = { res, op };
    const outputs = req.getAcceptsecrets() ? res.outputs : revealProps(res.outputs);
    return new m.res.RegisterResourceResponse().setUrn(urn).setId(res.id).setObject(toStruct(outputs));
  }

  async function registerOutputs(req: ResPbT.RegisterResourceOutputsRequest) {
    const outs = (req.getOutputs()?.toJavaScript() ?? {}) as Props;
    const slot = slots.find((s) => s.res.urn === req.getUrn());
    if (slot) slot.res.outputs = outs;
    if (slot?.res.type === 'pulumi:pulumi:Stack') stackOutputs = revealProps(outs); // plain values for easy asserting
    return new m.Empty();
  }

  async function deleteResource(r: ResourceState) {
    if (DYNAMIC_TYPE.test(r.type)) {
      await call(
        await host(),
        'delete',
        new m.prov.DeleteRequest()
          .setId(r.id)
          .setUrn(r.urn)
          .setType(r.type)
          .setName(r.urn.split('::').pop()!)
          .setProperties(toStruct(revealProps(r.outputs)))
          .setOldInputs(toStruct(revealProps(r.inputs))),
      );
    }
    return { op: 'delete' as const, urn: r.urn };
  }

  server.addService(m.resGrpc.ResourceMonitorService, {
    // Only secrets is claimed: resource references/output values/transforms etc. would need more engine than this.
    supportsFeature: unary(
      async (req: ResPbT.SupportsFeatureRequest) =>
        new m.res.SupportsFeatureResponse().setHassupport(req.getId() === 'secrets'),
      fail,
    ),
    registerResource: unary(registerResource, fail),
    registerResourceOutputs: unary(registerOutputs, fail),
    invoke: unary(
      async (req: ResPbT.ResourceInvokeRequest): Promise<ProvPbT.InvokeResponse> => {
        throw new Error(`unknown function ${req.getTok()}`);
      },
      () => undefined,
    ),
    call: unary(
      async (req: ResPbT.ResourceCallRequest): Promise<ProvPbT.CallResponse> => {
        throw new Error(`unknown function ${req.getTok()}`);
      },
      () => undefined,
    ),
    signalAndWaitForShutdown: unary(async () => new m.Empty(), fail), // sent from the runtime's beforeExit handler
  } as Partial<ResGrpcT.IResourceMonitorServer> as ResGrpcT.IResourceMonitorServer); // missing methods answer UNIMPLEMENTED
  const severity = ['debug', 'info', 'warning', 'error'];
  server.addService(m.engGrpc.EngineService, {
    log: unary(async (req: EngPbT.LogRequest) => {
      if (req.getSeverity() > 0)
        io.stderr += `${severity[req.getSeverity()]}: ${req.getUrn() ? `${req.getUrn()}: ` : ''}${req.getMessage()}\n`;
      return new m.Empty();
    }, fail),
    getRootResource: unary(async () => new m.eng.GetRootResourceResponse().setUrn(rootUrn), fail),
    setRootResource: unary(async (req: EngPbT.SetRootResourceRequest) => {
      rootUrn = req.getUrn();
      return new m.eng.SetRootResourceResponse();
    }, fail),
  } as Partial<EngGrpcT.IEngineServer> as EngGrpcT.IEngineServer);

  let engineAddr = '';
  const work = (async (): Promise<PulumiRunResult> => {
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', m.grpc.ServerCredentials.createInsecure(), (e, p) =>
        e ? reject(e) : resolve(p),
      ),
    );
    engineAddr = `127.0.0.1:${port}`; // one server hosts both ResourceMonitor and Engine
    host().catch(() => undefined); // start the host alongside the program (saves ~1 s); real errors surface where it is awaited
    // cmd/run takes these flags (minimist, stopEarly: program last); config only via PULUMI_CONFIG(_SECRET_KEYS) env.
    const child = spawn(
      process.execPath,
      [
        ...(o.nodeArgs ?? []),
        '--import',
        INSPECT_FIX,
        m.runEntry,
        `--monitor=${engineAddr}`,
        `--engine=${engineAddr}`,
        `--project=${o.project}`,
        `--stack=${o.stack}`,
        '--organization=organization',
        `--root-directory=${cwd}`,
        `--pwd=${cwd}`,
        o.main,
      ],
      {
        cwd,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          ...o.env,
          PULUMI_CONFIG: JSON.stringify(o.config),
          PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(o.secretConfigKeys ?? []),
        },
      },
    );
    children.push(child);
    child.stdout!.on('data', (d: Buffer) => (io.stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (io.stderr += d.toString()));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    if (failure) throw new Error(`${failure.message}\n${io.stderr}`);
    if (code !== 0) throw new Error(`program exited with code ${code}:\n${io.stderr}`);
    const steps: EngineStep[] = slots.map((s) => ({ op: s.op, urn: s.res.urn }));
    const live = new Set(slots.map((s) => s.res.urn));
    const gone = [...(o.previous?.resources ?? [])].filter((r) => !live.has(r.urn)).reverse();
    for (const r of [...replaced, ...gone]) steps.push(await deleteResource(r));
    return { state: { resources: slots.map((s) => s.res) }, steps, stackOutputs, ...io };
  })();
  work.catch(() => undefined); // after a timeout the loser's rejection must not become an unhandled rejection
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`pulumi run timed out after ${o.timeoutMs ?? 60000} ms\n${io.stderr}`)),
      o.timeoutMs ?? 60000,
    );
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    provider?.close();
    server.forceShutdown();
  }
}
