import type { ReplicationModes } from '@coffer/contracts/replication';
import {
  assertServedInMode,
  DR_SECONDARY_REFUSAL,
  drSecondaryAllows,
  healthWithReplication,
  PERFORMANCE_SECONDARY_WRITE_REFUSAL,
} from './dr-secondary.gate';

const modes = (dr: ReplicationModes['dr'], performance: ReplicationModes['performance'] = 'disabled') => ({
  dr,
  performance,
  performancePrimaryApiAddr: '',
});

const health = (status: number, body?: Record<string, unknown>) => ({
  status,
  body: body === undefined ? undefined : JSON.stringify(body),
  contentType: 'application/json',
});

describe('the replication gate', () => {
  it('lets a DR secondary answer replication, health and seal routes only', () => {
    for (const path of [
      'sys/health',
      'sys/seal-status',
      'sys/unseal',
      'sys/replication/status',
      'sys/replication/dr/status',
      'sys/replication/performance/status',
      'sys/replication/dr/secondary/promote',
      'sys/replication/dr/secondary/generate-operation-token/attempt',
      'sys/decode-token',
    ])
      expect(drSecondaryAllows(path)).toBe(true);
    for (const path of [
      'secret/data/a',
      'sys/mounts',
      'sys/replication/dr/primary/enable',
      'auth/token/lookup-self',
    ])
      expect(drSecondaryAllows(path)).toBe(false);
    expect(() => assertServedInMode(modes('secondary'), 'secret/data/a', false, 'kv')).toThrow(
      DR_SECONDARY_REFUSAL,
    );
    expect(() => assertServedInMode(modes('primary'), 'secret/data/a', true, 'kv')).not.toThrow();
  });

  it('refuses kv writes on a performance secondary, never its reads or other services', () => {
    const perf = modes('disabled', 'secondary');
    expect(() => assertServedInMode(perf, 'secret/data/a', true, 'kv')).toThrow(
      PERFORMANCE_SECONDARY_WRITE_REFUSAL,
    );
    expect(() => assertServedInMode(perf, 'secret/data/a', false, 'kv')).not.toThrow();
    expect(() => assertServedInMode(perf, 'pki/issue/r', true, 'pki')).not.toThrow();
  });

  it('answers health with the modes, and drsecondarycode on an unsealed DR secondary', () => {
    const ok = health(200, { initialized: true, sealed: false, replication_dr_mode: 'disabled' });
    const dr = healthWithReplication(ok, modes('secondary'), {});
    expect(dr.status).toBe(472);
    expect(JSON.parse(dr.body ?? '')).toMatchObject({ replication_dr_mode: 'secondary' });
    expect(healthWithReplication(ok, modes('secondary'), { drsecondarycode: '299' }).status).toBe(299);
    const primary = healthWithReplication(ok, modes('primary', 'primary'), {});
    expect(primary.status).toBe(200);
    expect(JSON.parse(primary.body ?? '')).toMatchObject({
      replication_dr_mode: 'primary',
      replication_performance_mode: 'primary',
    });
    // sealed first, as Vault: the seal code wins over the DR code
    const sealed = health(503, { initialized: true, sealed: true });
    expect(healthWithReplication(sealed, modes('secondary'), {}).status).toBe(503);
    // HEAD: no body, the status tells
    expect(healthWithReplication(health(200), modes('secondary'), {}).status).toBe(472);
    expect(healthWithReplication(health(503), modes('secondary'), {}).status).toBe(503);
    // a bad code parameter stays core-sys's 400
    expect(healthWithReplication(health(400, { errors: ['x'] }), modes('secondary'), {}).status).toBe(400);
  });
});
