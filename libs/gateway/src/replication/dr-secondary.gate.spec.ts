import type { ReplicationModes } from '@coffer/contracts/replication';
import {
  DR_SECONDARY_REFUSAL,
  drSecondaryAllows,
  healthWithReplication,
  PERFORMANCE_SECONDARY_LOCAL_WRITE_REFUSAL,
  READ_ONLY_STORAGE,
  servedInMode,
  type ModeTarget,
} from './dr-secondary.gate';

const kv: ModeTarget = { service: 'kv', local: false, mountType: 'kv' };

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
    expect(() => servedInMode(modes('secondary'), 'secret/data/a', false, kv, {})).toThrow(
      DR_SECONDARY_REFUSAL,
    );
    expect(servedInMode(modes('primary'), 'secret/data/a', true, kv, {})).toBe('local');
  });

  it('forwards replicated kv writes on a performance secondary, serves its reads and other services', () => {
    const perf = modes('disabled', 'secondary');
    expect(servedInMode(perf, 'secret/data/a', true, kv, {})).toBe('forward');
    expect(servedInMode(perf, 'secret/data/a', false, kv, {})).toBe('local');
    expect(
      servedInMode(perf, 'pki/issue/r', true, { service: 'pki', local: false, mountType: 'pki' }, {}),
    ).toBe('local');
    // not a secondary: nothing is forwarded
    expect(servedInMode(modes('disabled', 'primary'), 'secret/data/a', true, kv, {})).toBe('local');
    expect(servedInMode(modes('disabled'), 'secret/data/a', true, kv, {})).toBe('local');
  });

  it('keeps local mounts and cubbyhole off the forwarding path (refused: they would fork the log)', () => {
    const perf = modes('disabled', 'secondary');
    expect(() => servedInMode(perf, 'local-kv/a', true, { ...kv, local: true }, {})).toThrow(
      PERFORMANCE_SECONDARY_LOCAL_WRITE_REFUSAL,
    );
    expect(() =>
      servedInMode(perf, 'cubbyhole/a', true, { service: 'kv', local: true, mountType: 'cubbyhole' }, {}),
    ).toThrow(PERFORMANCE_SECONDARY_LOCAL_WRITE_REFUSAL);
  });

  it('honours X-Vault-No-Request-Forwarding / X-Service-No-Request-Forwarding (Vault: read-only storage)', () => {
    const perf = modes('disabled', 'secondary');
    for (const name of ['x-vault-no-request-forwarding', 'x-service-no-request-forwarding'])
      expect(() => servedInMode(perf, 'secret/data/a', true, kv, { [name]: 'true' })).toThrow(
        READ_ONLY_STORAGE,
      );
    // an empty value is no value (Vault checks for a non-empty header)
    expect(servedInMode(perf, 'secret/data/a', true, kv, { 'x-vault-no-request-forwarding': '' })).toBe(
      'forward',
    );
    // reads are served here whatever the header says
    expect(servedInMode(perf, 'secret/data/a', false, kv, { 'x-vault-no-request-forwarding': '1' })).toBe(
      'local',
    );
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
