import { coreLeaseRegister, engineResponseSchema, type MountInfo } from '@coffer/contracts';
import type { Transport } from '@coffer/transport';
import { renderEngineResponse } from './envelope';
import { registerLease } from './lease-registration';

const MOUNT: MountInfo = {
  path: 'dyn/',
  uuid: 'u',
  accessor: 'a',
  type: 'leasetest',
  namespace: '',
  options: {},
  config: { default_lease_ttl: 0, max_lease_ttl: 0 },
};

function fakeTransport(calls: unknown[]): Transport {
  return {
    request: (contract: { subject: string }, payload: unknown) => {
      calls.push({ subject: contract.subject, payload });
      return Promise.resolve({ lease_id: 'dyn/creds/x/abc', lease_duration: 60, renewable: true });
    },
  } as unknown as Transport;
}

describe('registerLease', () => {
  const at = { path: 'dyn/creds/x', mount: MOUNT, service: 'leasetest' };
  const opts = { headers: {}, timeoutMs: 1000 };

  it('registers an engine secret and fills the envelope, never showing the internal data', async () => {
    const calls: unknown[] = [];
    const answer = engineResponseSchema.parse({
      data: { username: 'u1' },
      secret: { ttl: 60, renewable: true, internal: { password_id: 'hidden' } },
    });
    const result = await registerLease(fakeTransport(calls), answer, at, opts);
    expect(calls).toEqual([
      {
        subject: coreLeaseRegister.subject,
        payload: expect.objectContaining({ path: 'dyn/creds/x', service: 'leasetest' }),
      },
    ]);
    const body = JSON.parse(renderEngineResponse(result, 'read', 'rid').body ?? '{}') as Record<
      string,
      unknown
    >;
    expect(body).toMatchObject({
      lease_id: 'dyn/creds/x/abc',
      lease_duration: 60,
      renewable: true,
      data: { username: 'u1' },
    });
    expect(JSON.stringify(body)).not.toContain('hidden');
  });

  it('leaves answers without a secret alone', async () => {
    const calls: unknown[] = [];
    const answer = engineResponseSchema.parse({ data: { a: 1 } });
    expect(await registerLease(fakeTransport(calls), answer, at, opts)).toBe(answer);
    expect(calls).toEqual([]);
  });
});
