import { compileAcl, parsePolicy } from '@coffer/acl';
import { DomainError, engineContract, existenceContract, type RouteDef } from '@coffer/contracts';
import { authorize, type AuthorizeInput } from './authorizer';

const create = engineContract('t.create');
const update = engineContract('t.update');
const shared = engineContract('t.write');
const exists = existenceContract('t.exists');

const acl = (hcl: string) => compileAcl([parsePolicy('p', hcl)]);
const route = (over: Partial<RouteDef> = {}): RouteDef => ({
  pattern: 'items/:name',
  synopsis: '',
  existenceCheck: exists,
  operations: { create: { contract: create, summary: '' }, update: { contract: update, summary: '' } },
  ...over,
});

async function run(
  over: Partial<AuthorizeInput>,
  existsAnswer = false,
): Promise<{ op?: string; error?: string; asked: number }> {
  let asked = 0;
  try {
    const { operation: op } = await authorize({
      acl: undefined,
      route: route(),
      kind: 'write',
      aclPath: 't/items/x',
      params: {},
      wrapTtl: undefined,
      exists: async () => {
        asked++;
        return existsAnswer;
      },
      ...over,
    });
    return { op, asked };
  } catch (e) {
    return { error: (e as DomainError).code, asked };
  }
}

describe('authorize', () => {
  it('skips the existence check when both create and update are granted and one handler serves both', async () => {
    const both = acl('path "t/*" { capabilities = ["create", "update"] }');
    const sameHandler = route({
      operations: { create: { contract: shared, summary: '' }, update: { contract: shared, summary: '' } },
    });
    expect(await run({ acl: both, route: sameHandler })).toEqual({ op: 'update', asked: 0 });
  });

  it('asks the existence check for the exact operation an audit device logs (root included)', async () => {
    const sameHandler = route({
      operations: { create: { contract: shared, summary: '' }, update: { contract: shared, summary: '' } },
    });
    expect(await run({ acl: undefined, route: sameHandler, exactOperation: true }, false)).toEqual({
      op: 'create',
      asked: 1,
    });
    expect(await run({ acl: undefined, route: sameHandler, exactOperation: true }, true)).toEqual({
      op: 'update',
      asked: 1,
    });
  });

  it('asks the existence check when create and update have different handlers', async () => {
    const both = acl('path "t/*" { capabilities = ["create", "update"] }');
    expect(await run({ acl: both }, false)).toEqual({ op: 'create', asked: 1 });
    expect(await run({ acl: both }, true)).toEqual({ op: 'update', asked: 1 });
    expect(await run({ acl: undefined }, true)).toEqual({ op: 'update', asked: 1 });
  });

  it('requires the capability matching the existence of the target', async () => {
    const createOnly = acl('path "t/*" { capabilities = ["create"] }');
    expect(await run({ acl: createOnly }, false)).toEqual({ op: 'create', asked: 1 });
    expect(await run({ acl: createOnly }, true)).toEqual({ error: 'permission_denied', asked: 1 });
    const updateOnly = acl('path "t/*" { capabilities = ["update"] }');
    expect(await run({ acl: updateOnly }, true)).toEqual({ op: 'update', asked: 1 });
    expect(await run({ acl: updateOnly }, false)).toEqual({ error: 'permission_denied', asked: 1 });
  });

  it('denies without asking when neither is granted', async () => {
    expect(await run({ acl: acl('path "t/*" { capabilities = ["read"] }') })).toEqual({
      error: 'permission_denied',
      asked: 0,
    });
  });

  it('treats a write without existence check as an update', async () => {
    const noCheck = route({
      existenceCheck: undefined,
      operations: { update: { contract: update, summary: '' } },
    });
    expect(await run({ acl: acl('path "t/*" { capabilities = ["update"] }'), route: noCheck })).toEqual({
      op: 'update',
      asked: 0,
    });
    expect(await run({ acl: acl('path "t/*" { capabilities = ["create"] }'), route: noCheck })).toEqual({
      error: 'permission_denied',
      asked: 0,
    });
  });

  it('checks plain operations and sudo', async () => {
    const readOnly = acl('path "t/*" { capabilities = ["read"] }');
    expect(await run({ acl: readOnly, kind: 'read' })).toEqual({ op: 'read', asked: 0 });
    expect(await run({ acl: readOnly, kind: 'delete' })).toEqual({ error: 'permission_denied', asked: 0 });
    const sudoRoute = route({
      sudo: true,
      existenceCheck: undefined,
      operations: { read: { contract: update, summary: '' } },
    });
    expect(await run({ acl: readOnly, kind: 'read', route: sudoRoute })).toEqual({
      error: 'permission_denied',
      asked: 0,
    });
    const withSudo = acl('path "t/*" { capabilities = ["read", "sudo"] }');
    expect(await run({ acl: withSudo, kind: 'read', route: sudoRoute })).toEqual({ op: 'read', asked: 0 });
    const perOp = route({
      sudo: { delete: true },
      existenceCheck: undefined,
      operations: { read: { contract: update, summary: '' }, delete: { contract: update, summary: '' } },
    });
    const readDelete = acl('path "t/*" { capabilities = ["read", "delete"] }');
    expect(await run({ acl: readDelete, kind: 'read', route: perOp })).toEqual({ op: 'read', asked: 0 });
    expect(await run({ acl: readDelete, kind: 'delete', route: perOp })).toEqual({
      error: 'permission_denied',
      asked: 0,
    });
  });

  it('applies parameter constraints to the given params', async () => {
    const constrained = acl(
      'path "t/*" { capabilities = ["update"] allowed_parameters = { "name" = ["ok"] } }',
    );
    const noCheck = route({ existenceCheck: undefined });
    expect(await run({ acl: constrained, route: noCheck, params: { name: 'ok' } })).toEqual({
      op: 'update',
      asked: 0,
    });
    expect(await run({ acl: constrained, route: noCheck, params: { name: 'no' } })).toEqual({
      error: 'permission_denied',
      asked: 0,
    });
  });

  it('lets the root ACL do anything', async () => {
    expect(
      await run({ acl: compileAcl([], { root: true }), kind: 'read', route: route({ sudo: true }) }),
    ).toEqual({ op: 'read', asked: 0 });
  });
});
