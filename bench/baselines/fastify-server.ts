import Fastify from 'fastify';

/**
 * Baseline for the HTTP step: a bare Fastify route returning a constant, in its own process like
 * the gateway. Usage: fastify-server.ts <port>; prints "listening <url>" once ready.
 */
async function main(): Promise<void> {
  const port = Number(process.argv[2] ?? '0');
  const app = Fastify({ logger: false });
  const constant = { data: { value: 'constant' } };
  app.get('/', async () => constant);
  const url = await app.listen({ host: '127.0.0.1', port });
  console.log(`listening ${url}`);
  const stop = () => void app.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
