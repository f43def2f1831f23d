import { ConfigError } from '@coffer/config';
import { serviceAppConfig } from './service.config';

describe('serviceAppConfig', () => {
  const cluster = {
    COFFER_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/coffer',
    COFFER_NATS_URL: 'nats://127.0.0.1:4222',
    COFFER_CLUSTER_SECRET: 'a-cluster-secret-of-some-length',
    COFFER_API_ADDR: 'https://coffer.example:8200',
  };
  const load = (env: Record<string, string>) => serviceAppConfig.load({ argv: [], env });

  it('takes Postgres, NATS, the cluster secret and the ops listener from the environment', () => {
    expect(load({ ...cluster, COFFER_OPS_LISTEN_ADDRESS: '127.0.0.1:19300' })).toMatchObject({
      databaseUrl: cluster.COFFER_DATABASE_URL,
      natsUrl: cluster.COFFER_NATS_URL,
      subjectPrefix: 'coffer',
      clusterSecret: cluster.COFFER_CLUSTER_SECRET,
      apiAddr: cluster.COFFER_API_ADDR,
      opsAddress: '127.0.0.1:19300',
      logLevel: 'info',
    });
  });

  it('honours COFFER_SUBJECT_PREFIX', () => {
    expect(load({ ...cluster, COFFER_SUBJECT_PREFIX: 'run42' }).subjectPrefix).toBe('run42');
  });

  it('names every missing cluster setting', () => {
    let error: unknown;
    try {
      load({});
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toContain('cluster mode needs storage "postgresql" (or COFFER_DATABASE_URL)');
    expect(message).toContain('cluster mode needs a nats block (or COFFER_NATS_URL)');
    expect(message).toContain('cluster_secret is required (or COFFER_CLUSTER_SECRET)');
  });

  it('rejects a short cluster secret', () => {
    expect(() => load({ ...cluster, COFFER_CLUSTER_SECRET: 'short' })).toThrow(ConfigError);
  });
});
