import { decideHealthStatus, healthBody, type HealthState } from './health';

const active: HealthState = {
  initialized: true,
  sealed: false,
  standby: false,
  performanceStandby: false,
  drSecondary: false,
};

describe('decideHealthStatus', () => {
  it('uses the default codes', () => {
    expect(decideHealthStatus(active, {})).toEqual({ ok: true, status: 200 });
    expect(decideHealthStatus({ ...active, initialized: false, sealed: true }, {})).toEqual({
      ok: true,
      status: 501,
    });
    expect(decideHealthStatus({ ...active, sealed: true }, {})).toEqual({ ok: true, status: 503 });
    expect(decideHealthStatus({ ...active, standby: true }, {})).toEqual({ ok: true, status: 429 });
    expect(decideHealthStatus({ ...active, standby: true, performanceStandby: true }, {})).toEqual({
      ok: true,
      status: 473,
    });
    expect(decideHealthStatus({ ...active, drSecondary: true, standby: true }, {})).toEqual({
      ok: true,
      status: 472,
    });
  });

  it('checks in Vault order: uninit before sealed before DR before standby', () => {
    const everything: HealthState = {
      initialized: false,
      sealed: true,
      standby: true,
      performanceStandby: true,
      drSecondary: true,
    };
    expect(decideHealthStatus(everything, {}).status).toBe(501);
    expect(decideHealthStatus({ ...everything, initialized: true }, {}).status).toBe(503);
    expect(decideHealthStatus({ ...everything, initialized: true, sealed: false }, {}).status).toBe(472);
  });

  it('honours code overrides', () => {
    expect(decideHealthStatus(active, { activecode: '299' })).toEqual({ ok: true, status: 299 });
    expect(decideHealthStatus({ ...active, sealed: true }, { sealedcode: '200' })).toEqual({
      ok: true,
      status: 200,
    });
    expect(decideHealthStatus({ ...active, initialized: false }, { uninitcode: '204' })).toEqual({
      ok: true,
      status: 204,
    });
  });

  it('standbyok and perfstandbyok turn standbys into activecode, each for its own kind', () => {
    expect(decideHealthStatus({ ...active, standby: true }, { standbyok: 'true' }).status).toBe(200);
    const perf = { ...active, standby: true, performanceStandby: true };
    expect(decideHealthStatus(perf, { standbyok: 'true' }).status).toBe(473);
    expect(decideHealthStatus(perf, { perfstandbyok: '1' }).status).toBe(200);
  });

  it('answers 400 for a non-integer code or a non-boolean flag', () => {
    expect(decideHealthStatus(active, { activecode: 'abc' })).toEqual({ ok: false, status: 400 });
    expect(decideHealthStatus(active, { sealedcode: '5.5' })).toEqual({ ok: false, status: 400 });
    expect(decideHealthStatus(active, { standbyok: 'maybe' })).toEqual({ ok: false, status: 400 });
    expect(decideHealthStatus(active, { removedcode: '' })).toEqual({ ok: false, status: 400 });
  });
});

describe('healthBody', () => {
  const now = new Date('2025-01-02T03:04:05Z');
  it('includes the cluster identity only when unsealed', () => {
    const cluster = { name: 'coffer-cluster-x', id: 'uuid' };
    const open = healthBody({ ...active, now, version: '0.1.0', cluster });
    expect(open).toMatchObject({
      initialized: true,
      sealed: false,
      standby: false,
      performance_standby: false,
      replication_performance_mode: 'disabled',
      replication_dr_mode: 'disabled',
      server_time_utc: 1735787045,
      version: '0.1.0',
      enterprise: false,
      cluster_name: 'coffer-cluster-x',
      cluster_id: 'uuid',
    });
    const sealed = healthBody({ ...active, sealed: true, now, version: '0.1.0', cluster });
    expect(sealed).not.toHaveProperty('cluster_id');
  });
});
