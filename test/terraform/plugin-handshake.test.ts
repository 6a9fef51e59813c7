// The go-plugin side of the provider, checked without Terraform: the handshake line, mutual TLS (a client
// with Terraform's certificate is served, one without is refused), the schema over gRPC, and Shutdown.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { createServerCertificate, type ServerCertificate } from '../../provider/terraform/src/certificate';
import { loadServiceDefinitions } from '../../provider/terraform/src/service-definitions';

const PLUGIN = resolve(__dirname, '..', '..', 'provider', 'terraform', 'dist', 'provider-program.js');
const COOKIE = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2';

let terraformSide: ServerCertificate;
let plugin: ChildProcess;
let handshake: string[];

beforeAll(async () => {
  terraformSide = await createServerCertificate();
  plugin = spawn(process.execPath, [PLUGIN], {
    env: {
      PATH: process.env.PATH,
      TF_PLUGIN_MAGIC_COOKIE: COOKIE,
      PLUGIN_PROTOCOL_VERSIONS: '5,6',
      PLUGIN_CLIENT_CERT: terraformSide.certificatePem,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(plugin.stdout!, 'data')) as [Buffer];
  handshake = line.toString().trim().split('|');
});
afterAll(() => plugin.kill('SIGKILL'));

const Client = grpc.makeGenericClientConstructor(loadServiceDefinitions().provider, 'Provider');
const Controller = grpc.makeGenericClientConstructor(loadServiceDefinitions().controller, 'GRPCController');
const serverPem = () =>
  `-----BEGIN CERTIFICATE-----\n${Buffer.from(handshake[5]!, 'base64')
    .toString('base64')
    .match(/.{1,64}/g)!
    .join('\n')}\n-----END CERTIFICATE-----\n`;
const target = () => `unix://${handshake[3]}`;
const asTerraform = () =>
  grpc.credentials.createSsl(
    Buffer.from(serverPem()),
    Buffer.from(terraformSide.privateKeyPem),
    Buffer.from(terraformSide.certificatePem),
  );
const options = { 'grpc.ssl_target_name_override': 'localhost', 'grpc.default_authority': 'localhost' };

function call<T>(client: grpc.Client, method: string, request: object = {}): Promise<T> {
  const invoke = (
    client as unknown as Record<string, (r: object, cb: (e: grpc.ServiceError | null, v: T) => void) => void>
  )[method]!.bind(client);
  return new Promise((resolveCall, reject) =>
    invoke(request, (error, value) => (error ? reject(error) : resolveCall(value))),
  );
}

test('the handshake line: core protocol 1, plugin protocol 6, a unix socket, grpc, and the server certificate', () => {
  expect(handshake.slice(0, 3)).toEqual(['1', '6', 'unix']);
  expect(handshake[4]).toBe('grpc');
  expect(handshake[5]).toMatch(/^[A-Za-z0-9+/]+$/); // base64 without padding, as go-plugin reads it
});

test("a client presenting Terraform's certificate gets the schema", async () => {
  const client = new Client(target(), asTerraform(), options);
  const schema = await call<{
    resource_schemas: Record<string, unknown>;
    data_source_schemas: Record<string, unknown>;
  }>(client, 'GetProviderSchema');
  expect(Object.keys(schema.resource_schemas)).toEqual(['dbtcloud_webhook', 'dbtcloud_operational_endpoint']);
  expect(Object.keys(schema.data_source_schemas)).toEqual(['dbtcloud_webhook']);
  client.close();
});

test('a client without a certificate, or with another one, is refused', async () => {
  const stranger = await createServerCertificate();
  for (const credentials of [
    grpc.credentials.createSsl(Buffer.from(serverPem())),
    grpc.credentials.createSsl(
      Buffer.from(serverPem()),
      Buffer.from(stranger.privateKeyPem),
      Buffer.from(stranger.certificatePem),
    ),
  ]) {
    const client = new Client(target(), credentials, { ...options, 'grpc.initial_reconnect_backoff_ms': 50 });
    await expect(call(client, 'GetProviderSchema')).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
    client.close();
  }
});

test('GRPCController.Shutdown ends the process with exit code 0', async () => {
  const controller = new Controller(target(), asTerraform(), options);
  const exited = once(plugin, 'exit');
  await call(controller, 'Shutdown');
  const [code] = (await exited) as [number | null];
  expect(code).toBe(0);
  controller.close();
});
