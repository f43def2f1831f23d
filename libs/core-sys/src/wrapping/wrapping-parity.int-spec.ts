import { decodeJwt, decodeProtectedHeader } from 'jose';
import {
  coreWrapResponse,
  sysContracts,
  tokenContracts,
  wrappingContracts,
  type MountInfo,
} from '@coffer/contracts';
import { startCoreSysHarness, type DevCoreSysHarness } from '../test-support/dev-harness';

jest.setTimeout(60_000);

const INVALID = 'wrapping token is not valid or does not exist';

let h: DevCoreSysHarness;
let sys: MountInfo;

beforeAll(async () => {
  h = await startCoreSysHarness('wrapping-parity');
  sys = h.mount('sys/');
  await h.call(sysContracts.policyWrite, {
    mount: sys,
    path: 'policies/acl/kvonly',
    params: { name: 'kvonly' },
    body: { policy: 'path "secret/*" { capabilities = ["read"] }' },
  });
});
afterAll(() => h?.close());

const response = (secret: string) => ({ request_id: 'r', data: { secret } });
const wrap = (secret: string, extra: Record<string, unknown> = {}) =>
  h.client.request(coreWrapResponse, {
    response: response(secret),
    ttl: 300,
    creationPath: 'secret/data/a',
    ...extra,
  });
const tokenWith = async (body: Record<string, unknown>): Promise<string> => {
  const res = await h.call(tokenContracts.create, { mount: h.mount('auth/token/'), path: 'create', body });
  return res.auth?.client_token ?? '';
};
const unwrapReq = (body: Record<string, unknown>, token?: string) => ({
  mount: sys,
  path: 'wrapping/unwrap',
  body,
  ...(token ? { headers: { 'x-vault-token': token } } : {}),
});

describe("third-party unwrap and rewrap pass the caller's ACL (Vault: the routes are not unauthenticated)", () => {
  it('refuses a caller whose policies do not grant update on sys/wrapping/unwrap; the response stays', async () => {
    const info = await wrap('acl');
    const kvOnly = await tokenWith({ policies: ['kvonly'], no_default_policy: true });
    expect(await h.fail(wrappingContracts.unwrap, unwrapReq({ token: info.token }, kvOnly))).toEqual({
      code: 'permission_denied',
      message: 'permission denied',
      warnings: undefined,
    });
    // no client token at all: the route needs one for a third-party unwrap
    expect(await h.fail(wrappingContracts.unwrap, unwrapReq({ token: info.token }))).toMatchObject({
      code: 'permission_denied',
    });
    // the default policy grants it
    const withDefault = await tokenWith({ policies: ['kvonly'] });
    const ok = await h.call(wrappingContracts.unwrap, unwrapReq({ token: info.token }, withDefault));
    expect(ok.body).toEqual(response('acl'));
  });

  it('checks the wrapping token first: an invalid one answers 400 whatever the caller', async () => {
    const kvOnly = await tokenWith({ policies: ['kvonly'], no_default_policy: true });
    expect(await h.fail(wrappingContracts.unwrap, unwrapReq({ token: 'hvs.nope' }, kvOnly))).toMatchObject({
      code: 'invalid_request',
      message: INVALID,
    });
  });

  it('rewrap needs update on sys/wrapping/rewrap (not in the default policy)', async () => {
    const info = await wrap('rewrap', { wrappedAccessor: 'acc-1' });
    const withDefault = await tokenWith({ policies: ['kvonly'] });
    const req = { mount: sys, path: 'wrapping/rewrap', body: { token: info.token } };
    expect(
      await h.fail(wrappingContracts.rewrap, { ...req, headers: { 'x-vault-token': withDefault } }),
    ).toMatchObject({ code: 'permission_denied' });
    const res = await h.call(wrappingContracts.rewrap, { ...req, headers: { 'x-vault-token': h.rootToken } });
    const wrapInfo = (res.body as { wrap_info: Record<string, unknown> }).wrap_info;
    // Vault's rewrap wraps a response without an auth block: no wrapped_accessor
    expect(wrapInfo).not.toHaveProperty('wrapped_accessor');
    expect(wrapInfo).toMatchObject({ ttl: 300, creation_path: 'secret/data/a' });
  });
});

describe('X-Vault-Wrap-Format: jwt', () => {
  it('hands the wrapping token out as an ES512 JWT that unwraps as client token or as `token`', async () => {
    const info = await h.client.request(coreWrapResponse, {
      response: { ...response('jwt-1'), auth: { accessor: 'wrapped-acc' } },
      ttl: 300,
      creationPath: 'secret/data/a',
      format: 'jwt',
      wrappedAccessor: 'wrapped-acc',
    });
    expect(decodeProtectedHeader(info.token)).toEqual({ alg: 'ES512', typ: 'JWT' });
    const claims = decodeJwt(info.token);
    expect(claims).toMatchObject({
      type: 'wrapping',
      accessor: 'wrapped-acc',
      jti: expect.stringMatching(/^hvs\./),
    });
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(300);
    expect(info).toMatchObject({ ttl: 300, wrapped_accessor: 'wrapped-acc' });
    expect(info.accessor).not.toBe('');

    const looked = await h.call(wrappingContracts.lookup, {
      mount: sys,
      path: 'wrapping/lookup',
      body: { token: info.token },
    });
    expect(looked.data).toMatchObject({ creation_ttl: 300, creation_path: 'secret/data/a' });
    const res = await h.call(wrappingContracts.unwrap, unwrapReq({}, info.token));
    expect(res.body).toEqual({ ...response('jwt-1'), auth: { accessor: 'wrapped-acc' } });
    expect(await h.fail(wrappingContracts.unwrap, unwrapReq({}, info.token))).toMatchObject({
      message: INVALID,
    });

    // an approle secret id's accessor is the wrapped accessor, not the JWT's accessor claim
    const second = await wrap('jwt-2', { format: 'jwt', wrappedAccessor: 'secret-id-acc' });
    expect(decodeJwt(second.token)).toMatchObject({ accessor: '' });
    expect(second.wrapped_accessor).toBe('secret-id-acc');
    const third = await h.call(wrappingContracts.unwrap, unwrapReq({ token: second.token }, h.rootToken));
    expect(third.body).toEqual(response('jwt-2'));
  });

  it('refuses a JWT whose signature does not verify with 403, and a JWT of another type', async () => {
    const info = await wrap('jwt-bad', { format: 'jwt' });
    const [header, payload] = info.token.split('.');
    const forged = `${header}.${payload}.${'A'.repeat(176)}`;
    expect(await h.fail(wrappingContracts.unwrap, unwrapReq({}, forged))).toEqual({
      code: 'permission_denied',
      message: 'error validating wrapping token: wrapping token signature could not be validated',
      warnings: undefined,
    });
    // the original still unwraps once
    const ok = await h.call(wrappingContracts.unwrap, unwrapReq({}, info.token));
    expect(ok.body).toEqual(response('jwt-bad'));
  });
});
