import { z } from 'zod';
import { isDomainError, weakInt, type EngineRequest } from '@coffer/contracts';
import { PLUGIN_HISTORY_HEADER } from '@coffer/contracts/plugins';
import { definePlugin, pluginOperation, type PluginStorage } from './plugin-definition';
import { PluginRouter } from './plugin-router';

const memory = (): PluginStorage => {
  const data = new Map<string, string>();
  return {
    get: (k) => Promise.resolve(data.get(k)),
    put: (k, v) => Promise.resolve(void data.set(k, v)),
    delete: (k) => Promise.resolve(void data.delete(k)),
    list: (p) =>
      Promise.resolve([...data.keys()].filter((k) => k.startsWith(p)).map((k) => k.slice(p.length))),
  };
};

const router = new PluginRouter(
  definePlugin({
    name: 'demo',
    routes: [
      {
        pattern: 'items',
        synopsis: '',
        history: true,
        operations: {
          list: pluginOperation({
            handler: async ({ storage }) => ({ data: { keys: await storage.list('') } }),
          }),
        },
      },
      {
        pattern: 'items/:name',
        synopsis: '',
        operations: {
          update: pluginOperation({
            body: z.object({ n: weakInt({ default: 0 }) }).prefault({}),
            handler: async ({ params, body, storage }) => {
              await storage.put(params['name'] ?? '', String(body.n));
              return {};
            },
          }),
        },
      },
    ],
  }),
);

const req = (
  operation: EngineRequest['operation'],
  path: string,
  body: Record<string, unknown> = {},
): EngineRequest => ({
  operation,
  path,
  params: {},
  body,
  query: {},
  headers: {},
  mount: {
    path: 'demo/',
    uuid: 'u',
    accessor: 'a',
    type: 'demo',
    namespace: '',
    options: {},
    config: { default_lease_ttl: 0, max_lease_ttl: 0 },
  },
});

const codeOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
  } catch (error) {
    if (isDomainError(error)) return `${error.code}: ${error.message}`;
    throw error;
  }
  return 'ok';
};

describe('PluginRouter', () => {
  it('routes, parses weak fields, answers create through update, lists with a folder slash', async () => {
    const storage = memory();
    expect(await router.dispatch(req('create', 'items/a', { n: '3' }), storage)).toEqual({});
    expect(await storage.get('a')).toBe('3');
    expect((await router.dispatch(req('list', 'items/'), storage)).data).toEqual({ keys: ['a'] });
  });

  it('answers unsupported path, unsupported operation, bad bodies and names ending in "."', async () => {
    const s = memory();
    expect(await codeOf(router.dispatch(req('read', 'nothing'), s))).toBe(
      'unsupported_path: unsupported path',
    );
    expect(await codeOf(router.dispatch(req('delete', 'items/a'), s))).toBe(
      'unsupported_operation: unsupported operation',
    );
    expect(await codeOf(router.dispatch(req('update', 'items/a', { n: 'x' }), s))).toMatch(
      /^invalid_request: /,
    );
    expect(await codeOf(router.dispatch(req('update', 'items/a.', {}), s))).toBe(
      'unsupported_path: unsupported path',
    );
  });

  it('serves a request of a past instant only on the reads and LISTs of routes declared history', async () => {
    const s = memory();
    await router.dispatch(req('update', 'items/a', { n: '1' }), s);
    const past = (r: EngineRequest): EngineRequest => ({ ...r, headers: { [PLUGIN_HISTORY_HEADER]: '7' } });
    expect((await router.dispatch(past(req('list', 'items/')), s)).data).toEqual({ keys: ['a'] });
    expect(await codeOf(router.dispatch(past(req('update', 'items/b', { n: '2' })), s))).toBe(
      'invalid_request: no history of "items/b" in this plugin',
    );
    expect(await s.get('b')).toBeUndefined();
  });
});
