import type { AnyEngineContract, ResponseOf } from '../routes';
import { sysContracts } from './system.routes';

/** What each raw sys contract lets out: the documented fields pass, anything else is stripped. */
const sent = (contract: AnyEngineContract, body: object) =>
  contract.response.parse({ kind: 'raw', body: { ...body, leaked: 'never', root_key: 'never' } }).body;

describe('sys raw response bodies', () => {
  it('sys/init GET: initialized only', () => {
    const answer: ResponseOf<typeof sysContracts.initStatus> = { kind: 'raw', body: { initialized: true } };
    expect(sent(sysContracts.initStatus, answer.body ?? {})).toEqual({ initialized: true });
  });

  it('sys/init PUT: the shares and the root token, nothing else', () => {
    const body = { keys: ['0a0b'], keys_base64: ['Cgs='], root_token: 'hvs.root' };
    const answer: ResponseOf<typeof sysContracts.init> = { kind: 'raw', body };
    expect(sent(sysContracts.init, answer.body ?? {})).toEqual(body);
    expect(
      sysContracts.init.response.parse({ kind: 'raw', body: { ...body, keyring: 'k', root_key: 'r' } }).body,
    ).toEqual(body);
  });

  it('sys/init PUT: a body without its documented fields is refused, not sent half-empty', () => {
    expect(sysContracts.init.response.safeParse({ kind: 'raw', body: { keys: [] } }).success).toBe(false);
  });

  const sealStatus = {
    type: 'shamir',
    initialized: true,
    sealed: true,
    t: 3,
    n: 5,
    progress: 1,
    nonce: 'abc',
    version: '0.1.0',
    build_date: '2025-01-01T00:00:00Z',
    migration: false,
    recovery_seal: false,
    storage_type: 'postgresql',
  };

  it.each([
    ['sys/seal-status', sysContracts.sealStatus],
    ['sys/unseal', sysContracts.unseal],
  ] as const)('%s: the seal status fields, cluster identity when given', (_, contract) => {
    expect(sent(contract, sealStatus)).toEqual(sealStatus);
    const open = { ...sealStatus, sealed: false, cluster_name: 'coffer-cluster-1', cluster_id: 'id-1' };
    expect(sent(contract, open)).toEqual(open);
  });

  const health = {
    initialized: true,
    sealed: false,
    standby: false,
    performance_standby: false,
    replication_performance_mode: 'disabled',
    replication_dr_mode: 'disabled',
    server_time_utc: 1735787045,
    version: '0.1.0',
    enterprise: false,
    echo_duration_ms: 0,
    clock_skew_ms: 0,
    replication_primary_canary_age_ms: 0,
  };

  it('sys/health: every field, with or without the cluster identity, whatever the status', () => {
    const active = { ...health, cluster_name: 'coffer-cluster-1', cluster_id: 'id-1' };
    expect(sent(sysContracts.health, active)).toEqual(active);
    const sealed = sysContracts.health.response.parse({
      kind: 'raw',
      status: 503,
      body: { ...health, sealed: true, leaked: 'never' },
    });
    expect(sealed).toMatchObject({ status: 503, body: { ...health, sealed: true } });
    expect(sealed.body).not.toHaveProperty('leaked');
  });

  it('sys/health: a refused query answers the bare error list', () => {
    const answer: ResponseOf<typeof sysContracts.health> = { kind: 'raw', status: 400, body: { errors: [] } };
    expect(
      sysContracts.health.response.parse({ ...answer, body: { errors: [], leaked: 'x' } }),
    ).toMatchObject({ status: 400, body: { errors: [] } });
    expect(sent(sysContracts.health, { errors: [] })).toEqual({ errors: [] });
  });
});
