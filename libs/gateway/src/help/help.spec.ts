import { engineContract, kvV2Routes, systemRoutes, type RouteTable } from '@coffer/contracts';
import { z } from 'zod';
import { buildHelp, relateRoute } from './help';

const c = engineContract('t.op');
const listRoles = engineContract('t.list', { data: z.object({ keys: z.array(z.string()) }) });
const readRole = engineContract('t.read', {
  query: z.object({ version: z.string().optional().describe('v') }),
});
const writeRole = engineContract('t.write', {
  body: z.object({ ttl: z.union([z.string(), z.number()]).describe('TTL') }),
});
const patchRole = engineContract('t.patch', { body: z.object({ ttl: z.string().optional() }) });
const table: RouteTable = {
  engine: 't',
  service: 't',
  help: 'Table help.',
  routes: [
    {
      pattern: 'roles',
      synopsis: 'Role list.',
      operations: {
        list: { contract: listRoles, summary: 'List roles.' },
      },
    },
    {
      pattern: 'roles/:name',
      synopsis: 'One role.',
      description: 'Role details.',
      sudo: true,
      operations: {
        read: { contract: readRole, summary: 'Read a role.' },
        update: { contract: writeRole, summary: 'Write a role.' },
        patch: { contract: patchRole, summary: 'Patch a role.', mergePatch: true },
        delete: { contract: c, summary: 'Delete a role.' },
      },
    },
    {
      pattern: 'creds/:name/:rest*',
      synopsis: 'Creds.',
      unauthenticated: true,
      operations: { read: { contract: c, summary: 'Get creds.' } },
    },
    {
      pattern: 'config',
      synopsis: 'Config.',
      operations: { read: { contract: c, summary: 'Read config.' } },
    },
  ],
};

describe('relateRoute', () => {
  it.each([
    ['roles/:name', '', '/roles/{name}', ['name']],
    ['roles/:name', 'roles', '/{name}', ['name']],
    ['roles/:name', 'roles/', '/{name}', ['name']],
    ['roles/:name', 'roles/web', '/', []],
    ['data/:path*', 'data/a/b/c', '/', []],
    ['metadata/:path*?', 'metadata', '/', []],
    [':path*?', '', '/', []],
    ['creds/:name/:rest*', 'creds', '/{name}/{rest}', ['name', 'rest']],
  ])('%s under %j -> %s', (pattern, rel, key, params) => {
    expect(relateRoute(pattern, rel)).toEqual({ key, pathParams: params });
  });

  it.each([
    ['roles/:name', 'config'],
    ['roles/:name', 'roles/web/extra'],
    ['config', 'configs'],
  ])('%s does not relate to %j', (pattern, rel) => {
    expect(relateRoute(pattern, rel)).toBeUndefined();
  });
});

describe('buildHelp', () => {
  it('documents every route below the mount with paths relative to it', () => {
    const doc = buildHelp(table, '', 'tmount/');
    expect(doc).toBeDefined();
    expect(Object.keys(doc?.openapi.paths ?? {})).toEqual([
      '/config',
      '/creds/{name}/{rest}',
      '/roles',
      '/roles/{name}',
    ]);
    expect(doc?.openapi.openapi).toMatch(/^3\./);
    expect(doc?.help).toContain('# tmount/');
    expect(doc?.help).toContain('Table help.');
    expect(doc?.help).toContain('| read | GET | Read a role. |');
    expect(doc?.help).toContain('_needs no token_');
  });

  it('describes operations with zod schemas as JSON schema', () => {
    const item = buildHelp(table, 'roles', 'tmount/roles')?.openapi.paths['/{name}'] as Record<string, any>;
    expect(item['parameters']).toEqual([
      { name: 'name', in: 'path', required: true, schema: { type: 'string' } },
    ]);
    expect(item['get'].parameters).toEqual([
      {
        name: 'version',
        in: 'query',
        required: false,
        description: 'v',
        schema: { description: 'v', type: 'string' },
      },
    ]);
    expect(item['post'].requestBody.content['application/json'].schema.properties.ttl.anyOf).toHaveLength(2);
    expect(item['patch'].requestBody.content['application/merge-patch+json']).toBeDefined();
    expect(item['delete'].summary).toBe('Delete a role.');
    expect(item['post']['x-coffer-sudo']).toBe(true);
  });

  it('documents LIST as GET with list=true', () => {
    const item = buildHelp(table, 'roles', 'tmount/roles')?.openapi.paths['/'] as Record<string, any>;
    expect(item['get'].parameters).toEqual([
      expect.objectContaining({ name: 'list', in: 'query', required: true }),
    ]);
    const data = item['get'].responses['200'].content['application/json'].schema.properties.data;
    expect(data.properties.keys.type).toBe('array');
  });

  it('answers for a concrete path with that route at "/"', () => {
    const doc = buildHelp(table, 'roles/web', 'tmount/roles/web');
    expect(Object.keys(doc?.openapi.paths ?? {})).toEqual(['/']);
    expect(doc?.openapi.paths['/']?.['summary']).toBe('One role.');
  });

  it('describes a raw answer by its body schema, without the envelope', () => {
    const init = buildHelp(systemRoutes, 'init', 'sys/init')?.openapi.paths['/'] as Record<string, any>;
    const put = init['post'].responses['200'].content['application/json'].schema;
    expect(put.properties).toHaveProperty('root_token');
    expect(put.properties).toHaveProperty('keys_base64');
    expect(put.properties).not.toHaveProperty('request_id');
    expect(put.required).toEqual(['keys', 'keys_base64', 'root_token']);
    const get = init['get'].responses['200'].content['application/json'].schema;
    expect(Object.keys(get.properties)).toEqual(['initialized']);
    const health = buildHelp(systemRoutes, 'health', 'sys/health')?.openapi.paths['/'] as Record<string, any>;
    const body = health['get'].responses['200'].content['application/json'].schema;
    expect(body.anyOf[0].properties).toHaveProperty('replication_primary_canary_age_ms');
  });

  it('is undefined when nothing matches', () => {
    expect(buildHelp(table, 'nothing/here', 'tmount/nothing/here')).toBeUndefined();
  });

  it('handles the real route tables', () => {
    expect(Object.keys(buildHelp(kvV2Routes, 'data', 'secret/data')?.openapi.paths ?? {})).toContain(
      '/{path}',
    );
    const sys = buildHelp(systemRoutes, '', 'sys/');
    expect(Object.keys(sys?.openapi.paths ?? {}).length).toBeGreaterThan(10);
    expect(() => JSON.stringify(sys)).not.toThrow();
  });
});
