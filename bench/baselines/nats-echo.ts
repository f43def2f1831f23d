import { connect } from 'nats';

/**
 * Baseline for the transport step: a bare NATS request-reply echo in its own process (a queue
 * group member, like a service replica). Usage: nats-echo.ts <nats url> <subject>; prints "ready".
 */
async function main(): Promise<void> {
  const [servers = 'nats://127.0.0.1:4222', subject = 'bench.echo'] = process.argv.slice(2);
  const nc = await connect({ servers, name: 'coffer-bench-echo' });
  const sub = nc.subscribe(subject, { queue: 'bench-echo' });
  await nc.flush();
  console.log('ready');
  const stop = () => void nc.drain().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  for await (const msg of sub) msg.respond(msg.data);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
