import { createInterface } from 'node:readline';
import { DomainError, isDomainError, type EngineRequest } from '@coffer/contracts';
import {
  corePluginStorage,
  PLUGIN_ENV,
  pluginQueue,
  pluginRequestContract,
  pluginWireMessageSchema,
  type PluginStorageRequest,
  type PluginStorageResult,
  type PluginWireMessage,
} from '@coffer/contracts/plugins';
import { engineResponseSchema } from '@coffer/contracts';
import { connectNatsTransport } from '@coffer/transport';
import type { PluginDefinition, PluginStorage } from './plugin-definition';
import { PluginRouter } from './plugin-router';

type StorageCall = (mount: string, request: PluginStorageRequest) => Promise<PluginStorageResult>;

function storageFor(mount: string, call: StorageCall): PluginStorage {
  return {
    get: async (key) => (await call(mount, { op: 'get', key })).value ?? undefined,
    put: async (key, value) => void (await call(mount, { op: 'put', key, value })),
    delete: async (key) => void (await call(mount, { op: 'delete', key })),
    list: async (prefix) => (await call(mount, { op: 'list', prefix })).keys,
  };
}

/**
 * A plugin process's main: serves the definition as the host started it (environment set by the
 * host): over stdio (dev mode: one JSON message a line, stdout reserved for the protocol) or as a
 * NATS service of its own (cluster mode). Either way it exits when its stdin closes, so a plugin
 * never outlives the host that started it.
 */
export async function runPlugin(definition: PluginDefinition, env: NodeJS.ProcessEnv): Promise<void> {
  // The host names the plugin as its catalog entry does (the mount type and the subject).
  const named = { ...definition, name: env[PLUGIN_ENV.name] ?? definition.name };
  const router = new PluginRouter(named);
  if (env[PLUGIN_ENV.transport] === 'nats') {
    await serveOverNats(named, router, env);
  } else {
    serveOverStdio(router);
  }
}

async function serveOverNats(definition: PluginDefinition, router: PluginRouter, env: NodeJS.ProcessEnv) {
  const servers = (env[PLUGIN_ENV.natsServers] ?? '').split(',').map((s) => s.trim());
  const transport = await connectNatsTransport({
    servers,
    subjectPrefix: env[PLUGIN_ENV.subjectPrefix] ?? 'coffer',
    name: `plugin-${definition.name}-${process.pid}`,
  });
  const secret = env[PLUGIN_ENV.secret] ?? '';
  const call: StorageCall = (mount, request) =>
    transport.request(corePluginStorage, { plugin: definition.name, secret, mount, request });
  transport.serve(pluginRequestContract(definition.name), pluginQueue(definition.name), (req) =>
    router.dispatch(req, storageFor(req.mount.uuid, call)),
  );
  await transport.flush();
  process.stdin.resume();
  process.stdin.on('end', () => {
    void transport.close().finally(() => process.exit(0));
  });
  process.stderr.write(`plugin ${definition.name} serving on NATS\n`);
}

function serveOverStdio(router: PluginRouter): void {
  const send = (message: PluginWireMessage): void => {
    process.stdout.write(`${JSON.stringify(message)}\n`);
  };
  let nextId = 1;
  const pending = new Map<
    number,
    { resolve: (r: PluginStorageResult) => void; reject: (e: Error) => void }
  >();
  const call: StorageCall = (mount, request) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      send({ kind: 'storage', id, mount, request });
    });
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    const parsed = pluginWireMessageSchema.safeParse(JSON.parse(line));
    if (!parsed.success) return;
    const message = parsed.data;
    if (message.kind === 'storage-result') {
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      if (!waiter) return;
      if (message.result) waiter.resolve(message.result);
      else waiter.reject(new DomainError('internal', message.error?.message ?? 'storage failed'));
      return;
    }
    if (message.kind !== 'request') return;
    const request = message.request as EngineRequest;
    router.dispatch(request, storageFor(request.mount.uuid, call)).then(
      (response) =>
        send({ kind: 'response', id: message.id, response: engineResponseSchema.parse(response) }),
      (error: unknown) => {
        const e = isDomainError(error) ? error : new DomainError('internal', 'internal error');
        if (!isDomainError(error))
          process.stderr.write(`plugin handler failed: ${(error as Error).message}\n`);
        send({ kind: 'response', id: message.id, error: { code: e.code, message: e.message } });
      },
    );
  });
  lines.on('close', () => process.exit(0));
  send({ kind: 'ready' });
}
