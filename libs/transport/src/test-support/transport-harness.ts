import { DomainError, type CallerContext } from '@coffer/contracts';
import { InProcessTransport, connectNatsTransport, type Transport, type TransportLogger } from '../index';
import { natsUrl } from '@coffer/testing';

/**
 * The two ways to run the transport behaviour suites: NATS (two connections, as two processes
 * would have) and the in-process bus. Both must be indistinguishable to a service.
 */

/** the test NATS (found or started by the jest global set-up) */
const NATS_URL = natsUrl();

export class CapturingLogger implements TransportLogger {
  readonly lines: string[] = [];
  error(message: string, stack?: string): void {
    this.lines.push(`error ${message} ${stack ?? ''}`);
  }
  warn(message: string): void {
    this.lines.push(`warn ${message}`);
  }
}

export interface Pair {
  /** the serving side */
  server: Transport;
  /** the calling side (the same object in-process) */
  client: Transport;
  close(): Promise<void>;
}

let pairs = 0;

export const harnesses: [string, (logger?: TransportLogger) => Promise<Pair>][] = [
  [
    'nats',
    async (logger = new CapturingLogger()) => {
      const subjectPrefix = `t${process.pid}${Date.now()}n${++pairs}`;
      const server = await connectNatsTransport({
        servers: NATS_URL,
        subjectPrefix,
        name: 'spec-server',
        logger,
      });
      const client = await connectNatsTransport({
        servers: NATS_URL,
        subjectPrefix,
        name: 'spec-client',
        logger,
      });
      return {
        server,
        client,
        close: async () => void (await Promise.all([server.close(), client.close()])),
      };
    },
  ],
  [
    'in-process',
    async (logger = new CapturingLogger()) => {
      const bus = new InProcessTransport({ subjectPrefix: 'dev', logger });
      return { server: bus, client: bus, close: () => bus.close() };
    },
  ],
];

export async function until(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met before the deadline');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export async function rejection(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a rejection');
}

export const caller: CallerContext = {
  requestId: 'req-1',
  namespace: 'ns1/',
  clientAddress: '127.0.0.1',
  accessor: 'acc-1',
  sudo: false,
  policies: ['default', 'dev'],
  root: false,
};
