import {
  coreTokenResolve,
  coreWrapResponse,
  wrappingContracts,
  type MountInfo,
  type WrapInfo,
} from '@coffer/contracts';
import { startCoreSysHarness, type DevCoreSysHarness } from '../test-support/dev-harness';

jest.setTimeout(120_000);

const INVALID = 'wrapping token is not valid or does not exist';

describe('response wrapping (core-sys, real Postgres + NATS)', () => {
  let h: DevCoreSysHarness;
  let sys: MountInfo;

  beforeAll(async () => {
    h = await startCoreSysHarness('wrapping');
    sys = h.mount('sys/');
  }, 60_000);
  afterAll(() => h?.close(), 30_000);

  const original = (secret: string) => ({
    request_id: 'original-request',
    lease_id: '',
    renewable: false,
    lease_duration: 0,
    data: { password: secret, nested: { list: [1, 'two', null] } },
    wrap_info: null,
    warnings: null,
    auth: null,
  });

  const wrap = (response: Record<string, unknown>, ttl = 300, extra: { wrappedAccessor?: string } = {}) =>
    h.client.request(coreWrapResponse, { response, ttl, creationPath: 'secret/data/app', ...extra });

  const asRoot = () => ({ 'x-vault-token': h.rootToken });
  const unwrap = (token: string) =>
    h.call(wrappingContracts.unwrap, {
      mount: sys,
      path: 'wrapping/unwrap',
      body: { token },
      headers: asRoot(),
    });
  const unwrapFails = (token: string, headers?: Record<string, string>) =>
    h.fail(wrappingContracts.unwrap, {
      mount: sys,
      path: 'wrapping/unwrap',
      body: headers ? {} : { token },
      headers,
    });
  const lookup = (token: string) =>
    h.call(wrappingContracts.lookup, { mount: sys, path: 'wrapping/lookup', body: { token } });

  it('wraps a response in a single-use token and answers it exactly once', async () => {
    const response = original('s3cr3t');
    const info: WrapInfo = await wrap(response, 120);
    expect(info).toEqual({
      token: expect.stringMatching(/^hvs\.|^s\.|^.{20,}$/),
      accessor: expect.any(String),
      ttl: 120,
      creation_time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/),
      creation_path: 'secret/data/app',
    });
    const looked = await lookup(info.token);
    expect(looked.data).toEqual({
      creation_ttl: 120,
      creation_time: info.creation_time,
      creation_path: 'secret/data/app',
    });
    const res = await unwrap(info.token);
    expect(res).toMatchObject({ kind: 'raw', status: 200, body: response });
    expect(await unwrapFails(info.token)).toEqual({ code: 'invalid_request', message: INVALID });
    expect(
      await h.fail(wrappingContracts.lookup, {
        mount: sys,
        path: 'wrapping/lookup',
        body: { token: info.token },
      }),
    ).toEqual({ code: 'invalid_request', message: INVALID });
  });

  it('unwraps with the wrapping token as the client token (forwarded headers)', async () => {
    const info = await wrap(original('by-header'));
    const res = await h.call(wrappingContracts.unwrap, {
      mount: sys,
      path: 'wrapping/unwrap',
      body: {},
      headers: { 'x-vault-token': info.token },
    });
    expect(res.body).toEqual(original('by-header'));
    expect(await unwrapFails('', { authorization: `Bearer ${info.token}` })).toEqual({
      code: 'invalid_request',
      message: INVALID,
    });
  });

  it('looks a token up by GET with the token in the query', async () => {
    const info = await wrap(original('query'), 45);
    const looked = await h.call(wrappingContracts.lookup, {
      mount: sys,
      path: 'wrapping/lookup',
      operation: 'read',
      query: { token: info.token },
    });
    expect(looked.data).toMatchObject({ creation_ttl: 45, creation_path: 'secret/data/app' });
  });

  it('refuses a third-party unwrap whose own client token is invalid, and keeps the response', async () => {
    const info = await wrap(original('third-party'));
    const denied = await h.fail(wrappingContracts.unwrap, {
      mount: sys,
      path: 'wrapping/unwrap',
      body: { token: info.token },
      headers: { 'x-vault-token': 'not-a-token' },
    });
    expect(denied).toEqual({ code: 'invalid_token', message: 'permission denied' });
    const ok = await h.call(wrappingContracts.unwrap, {
      mount: sys,
      path: 'wrapping/unwrap',
      body: { token: info.token },
      headers: { 'x-vault-token': h.rootToken },
    });
    expect(ok.body).toEqual(original('third-party'));
  });

  it('keeps the wrapped accessor of an auth response', async () => {
    const info = await wrap(original('auth'), 60, { wrappedAccessor: 'wrapped-acc' });
    expect(info.wrapped_accessor).toBe('wrapped-acc');
  });

  it('refuses a wrapping token used as an ordinary token, without spending it', async () => {
    const info = await wrap(original('ordinary'));
    await expect(h.client.request(coreTokenResolve, { token: info.token })).rejects.toMatchObject({
      code: 'invalid_token',
      message: 'permission denied',
    });
    expect((await unwrap(info.token)).body).toEqual(original('ordinary'));
  });

  it('rewraps into a new token with the same creation TTL and path; the old one is gone', async () => {
    const info = await wrap(original('rewrap'), 90);
    const res = await h.call(wrappingContracts.rewrap, {
      mount: sys,
      path: 'wrapping/rewrap',
      body: { token: info.token },
      headers: asRoot(),
    });
    const body = res.body as { wrap_info: WrapInfo; data: null; request_id: string };
    expect(body.data).toBeNull();
    expect(body.wrap_info.token).not.toBe(info.token);
    expect(body.wrap_info).toMatchObject({ ttl: 90, creation_path: 'secret/data/app' });
    expect(await unwrapFails(info.token)).toEqual({ code: 'invalid_request', message: INVALID });
    expect((await lookup(body.wrap_info.token)).data).toMatchObject({ creation_ttl: 90 });
    expect((await unwrap(body.wrap_info.token)).body).toEqual(original('rewrap'));
  });

  it('answers 400 with Vault text for unknown, malformed, missing and ordinary tokens', async () => {
    for (const token of ['hvs.unknownunknownunknown', 'x', '%%%', h.rootToken]) {
      expect(await unwrapFails(token)).toEqual({ code: 'invalid_request', message: INVALID });
    }
    expect(await unwrapFails('', {})).toEqual({ code: 'invalid_request', message: INVALID });
  });

  it('answers 400 once the wrapping token expired, and nothing changes', async () => {
    const info = await wrap(original('expiring'), 30);
    const start = h.clock.now;
    h.clock.now = new Date(start.getTime() + 31_000);
    try {
      expect(await unwrapFails(info.token)).toEqual({ code: 'invalid_request', message: INVALID });
    } finally {
      h.clock.now = start;
    }
    expect((await unwrap(info.token)).body).toEqual(original('expiring'));
  });

  it('sys/wrapping/wrap answers the body as data, and refuses without a wrap TTL', async () => {
    const res = await h.call(wrappingContracts.wrap, {
      mount: sys,
      path: 'wrapping/wrap',
      body: { a: 'b', n: 1 },
      headers: { 'x-vault-wrap-ttl': '60' },
    });
    expect(res.data).toEqual({ a: 'b', n: 1 });
    expect(
      await h.fail(wrappingContracts.wrap, { mount: sys, path: 'wrapping/wrap', body: { a: 'b' } }),
    ).toEqual({
      code: 'invalid_request',
      message: 'wrapping information was nil; wrapping token not created',
    });
  });

  it('refuses a wrap TTL under one second', async () => {
    await expect(wrap(original('short'), 0.5)).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('two concurrent unwraps of one token: exactly one wins, 50 runs', async () => {
    for (let run = 0; run < 50; run++) {
      const info = await wrap(original(`race-${run}`));
      const results = await Promise.allSettled([unwrap(info.token), unwrap(info.token)]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]?.reason).toMatchObject({ code: 'invalid_request', message: INVALID });
      expect((won[0] as PromiseFulfilledResult<{ body: unknown }>).value.body).toEqual(
        original(`race-${run}`),
      );
    }
  });
});
