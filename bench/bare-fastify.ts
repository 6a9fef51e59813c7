// The API ceiling: a bare Fastify server (no auth, no storage, no validation) answering GET and POST with
// the JSON bodies the service gave for the same requests. Run as its own process, like the service.
import Fastify from 'fastify';

async function main(): Promise<void> {
  const { getBody, createBody } = JSON.parse(process.argv[2] ?? '{}') as { getBody: unknown; createBody: unknown };
  const app = Fastify({ logger: false });
  app.get('/api/v3/accounts/:account_id/webhooks/subscription/:webhook_id', async () => getBody);
  app.post('/api/v3/accounts/:account_id/webhooks/subscriptions', async (_request, reply) =>
    reply.code(201).send(createBody),
  );
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`${address}\n`);
}

void main();
