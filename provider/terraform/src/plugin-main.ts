// The provider process Terraform starts: go-plugin handshake over a unix socket with mutual TLS, then the
// tfplugin6 service until Terraform calls GRPCController.Shutdown. Only the handshake line goes to stdout.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { createServerCertificate } from './certificate';
import { providerHandlers } from './provider-server';
import { loadServiceDefinitions } from './service-definitions';

/** go-plugin's check that the process was started by Terraform (the value every Terraform provider expects). */
export const MAGIC_COOKIE_KEY = 'TF_PLUGIN_MAGIC_COOKIE';
export const MAGIC_COOKIE_VALUE = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2';
const CORE_PROTOCOL_VERSION = 1;
const APP_PROTOCOL_VERSION = 6;
/** go-plugin kills a plugin that has not exited 2 s after Shutdown; finish well before that. */
const SHUTDOWN_GRACE_MS = 1_000;

export async function servePlugin(env: NodeJS.ProcessEnv = process.env): Promise<number | null> {
  if (env[MAGIC_COOKIE_KEY] !== MAGIC_COOKIE_VALUE) {
    process.stderr.write(
      'This is the jobhooks Terraform provider (dbt-labs/dbtcloud). Terraform starts it; set it up with "npx @jobhooks/terraform-provider install".\n',
    );
    return 1;
  }
  const offered = (env.PLUGIN_PROTOCOL_VERSIONS ?? String(APP_PROTOCOL_VERSION)).split(',');
  if (!offered.includes(String(APP_PROTOCOL_VERSION))) {
    process.stderr.write(
      `This provider speaks plugin protocol ${APP_PROTOCOL_VERSION}; Terraform offered ${offered.join(', ')}. Use Terraform 1.0 or later.\n`,
    );
    return 1;
  }
  // Terraform forwards Ctrl-C to the whole process group; it then stops providers itself, so ignore it here.
  process.on('SIGINT', () => {});

  const socketDir = mkdtempSync(join(tmpdir(), 'jobhooks-tf-'));
  const socket = join(socketDir, 'plugin.sock');
  const server = new grpc.Server();
  // Graceful: the Shutdown call itself is still in flight and must get its answer; force only if stuck.
  // The socket folder goes with the process (see the 'exit' handler below).
  const shutdown = () => {
    setTimeout(() => {
      server.forceShutdown();
      process.exit(0);
    }, SHUTDOWN_GRACE_MS).unref();
    server.tryShutdown(() => process.exit(0));
  };
  const { provider, controller } = providerHandlers({ env, onShutdown: shutdown });
  const definitions = loadServiceDefinitions();
  server.addService(definitions.provider, provider);
  server.addService(definitions.controller, controller);

  const clientCertificate = env.PLUGIN_CLIENT_CERT;
  let credentials = grpc.ServerCredentials.createInsecure();
  let certificateField = '';
  if (clientCertificate) {
    const certificate = await createServerCertificate();
    credentials = grpc.ServerCredentials.createSsl(
      Buffer.from(clientCertificate),
      [{ private_key: Buffer.from(certificate.privateKeyPem), cert_chain: Buffer.from(certificate.certificatePem) }],
      true,
    );
    certificateField = `|${certificate.handshakeBase64}`;
  }
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socket}`, credentials, (error) => (error ? reject(error) : resolve())),
  );
  process.on('exit', () => rmSync(socketDir, { recursive: true, force: true }));
  process.stdout.write(`${CORE_PROTOCOL_VERSION}|${APP_PROTOCOL_VERSION}|unix|${socket}|grpc${certificateField}\n`);
  return null;
}

/** Serves until Terraform shuts the provider down: the program that `install` lays out runs this. */
export function main(): void {
  servePlugin().then(
    (code) => {
      if (code !== null) process.exit(code);
    },
    (error: unknown) => {
      process.stderr.write(`jobhooks terraform provider: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    },
  );
}
