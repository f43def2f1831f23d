import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import {
  DomainError,
  engineResponseSchema,
  type EngineRequest,
  type EngineResponse,
} from '@coffer/contracts';
import {
  pluginQueue,
  pluginRequestContract,
  pluginWireMessageSchema,
  type PluginStorageRequest,
  type PluginStorageResult,
  type PluginWireMessage,
} from '@coffer/contracts/plugins';
import type { Subscription, Transport } from '@coffer/transport';

export interface PluginProcessOptions {
  name: string;
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** dev mode: the host bridges its transport to the child's stdio */
  stdio?: {
    transport: Transport;
    storage: (mount: string, request: PluginStorageRequest) => Promise<PluginStorageResult>;
  };
  log: (line: string) => void;
  onExit: (code: number | null, signal: string | null) => void;
}

const down = (name: string) =>
  new DomainError('service_unavailable', `no running replica of the "${pluginQueue(name)}" service`);

/**
 * One running plugin process. In dev mode it serves the plugin's subject on the host's transport
 * and relays each request over stdio (one JSON message a line); requests while it is not ready,
 * or pending when it dies, fail at once with 503. In cluster mode the child serves NATS itself
 * and this only keeps its stdin open (closing it stops the child) and relays its stderr.
 */
export class PluginProcess {
  readonly child: ChildProcessWithoutNullStreams;
  #bridge: Subscription | undefined;
  #nextId = 1;
  readonly #pending = new Map<number, { resolve: (r: EngineResponse) => void; reject: (e: Error) => void }>();
  #exited = false;

  constructor(private readonly opts: PluginProcessOptions) {
    this.child = spawn(opts.file, opts.args, { cwd: opts.cwd, env: opts.env, stdio: 'pipe' });
    this.child.on('error', (error) => opts.log(`could not start: ${error.message}`));
    createInterface({ input: this.child.stderr }).on('line', (line) => opts.log(line));
    if (opts.stdio) {
      createInterface({ input: this.child.stdout }).on('line', (line) => this.#onLine(line));
    } else {
      this.child.stdout.resume();
    }
    this.child.on('exit', (code, signal) => {
      this.#exited = true;
      this.#bridge?.unsubscribe();
      this.#bridge = undefined;
      for (const waiter of this.#pending.values()) waiter.reject(down(opts.name));
      this.#pending.clear();
      opts.onExit(code, signal);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  #send(message: PluginWireMessage): void {
    if (!this.#exited) this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  #onLine(line: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      this.opts.log(`stdout: ${line.slice(0, 200)}`);
      return;
    }
    const parsed = pluginWireMessageSchema.safeParse(raw);
    if (!parsed.success) return;
    const message = parsed.data;
    switch (message.kind) {
      case 'ready':
        this.#serve();
        return;
      case 'response': {
        const waiter = this.#pending.get(message.id);
        this.#pending.delete(message.id);
        if (!waiter) return;
        if (message.error) waiter.reject(new DomainError(message.error.code as never, message.error.message));
        else waiter.resolve(engineResponseSchema.parse(message.response ?? {}));
        return;
      }
      case 'storage': {
        const storage = this.opts.stdio?.storage;
        if (!storage) return;
        storage(message.mount, message.request).then(
          (result) => this.#send({ kind: 'storage-result', id: message.id, result }),
          (error: unknown) =>
            this.#send({
              kind: 'storage-result',
              id: message.id,
              error: { code: 'internal', message: (error as Error).message },
            }),
        );
        return;
      }
      case 'request':
      case 'storage-result':
        // host → plugin messages: a plugin never sends them
        return;
    }
  }

  #serve(): void {
    const stdio = this.opts.stdio;
    if (!stdio || this.#bridge || this.#exited) return;
    const name = this.opts.name;
    this.#bridge = stdio.transport.serve(pluginRequestContract(name), pluginQueue(name), (request) =>
      this.#relay(request),
    );
  }

  #relay(request: EngineRequest): Promise<EngineResponse> {
    if (this.#exited) return Promise.reject(down(this.opts.name));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#send({ kind: 'request', id, request });
    });
  }

  /** Closes stdin (the child exits), then SIGKILL if it lingers. */
  stop(): void {
    this.#bridge?.unsubscribe();
    this.#bridge = undefined;
    if (this.#exited) return;
    this.child.stdin.end();
    setTimeout(() => {
      if (!this.#exited) this.child.kill('SIGKILL');
    }, 5_000).unref();
  }
}
