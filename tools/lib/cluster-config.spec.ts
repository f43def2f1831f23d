import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseServerConfig } from '@coffer/config';
import { ENGINES } from '@coffer/engines';
import { renderClusterConfig } from '../../test/support/launch/cluster-config';

describe('renderClusterConfig', () => {
  const params = {
    clusterName: 'coffer-e2e',
    apiAddress: '127.0.0.1:18200',
    opsAddress: '127.0.0.1:19203',
    databaseUrl: 'postgres://postgres@127.0.0.1:5432/ct_e2e',
    natsUrl: 'nats://127.0.0.1:4222',
    subjectPrefix: 't-e2e-1',
    clusterSecret: 'x'.repeat(32),
    kvReplicas: 2,
  };

  it('renders a file the server config parser accepts, with every value in place', () => {
    const config = parseServerConfig(renderClusterConfig({ ...params, maxRequestSize: 1024 }));
    expect(config.listeners).toEqual([
      expect.objectContaining({
        address: '127.0.0.1:18200',
        purpose: ['api'],
        tlsDisable: true,
        maxRequestSize: 1024,
      }),
      expect.objectContaining({ address: '127.0.0.1:19203', purpose: ['ops'], tlsDisable: true }),
    ]);
    expect(config.storage).toEqual({
      type: 'postgresql',
      connectionUrl: params.databaseUrl,
      maxConnections: 10,
    });
    expect(config.nats).toEqual({ url: params.natsUrl, subjectPrefix: 't-e2e-1' });
    expect(config.clusterSecret).toBe(params.clusterSecret);
    expect(config.services).toMatchObject({ 'core-sys': { replicas: 1 }, kv: { replicas: 2 } });
    // every engine of the list gets a service block, one replica unless told otherwise
    expect(Object.keys(config.services)).toEqual(ENGINES.map((e) => e.name));
    expect(config.apiAddr).toBe('http://127.0.0.1:18200');
  });

  it('escapes values so a quote cannot break out of a string', () => {
    const config = parseServerConfig(renderClusterConfig({ ...params, clusterName: 'a"b\\c' }));
    expect(config.clusterName).toBe('a"b\\c');
  });
});

describe('deploy/local/cluster.hcl', () => {
  it('is a valid server config with Postgres, NATS and two kv replicas', () => {
    const file = path.join(__dirname, '..', '..', 'deploy', 'local', 'cluster.hcl');
    const config = parseServerConfig(readFileSync(file, 'utf8'));
    expect(config.storage).toMatchObject({
      type: 'postgresql',
      connectionUrl: 'postgres://postgres@127.0.0.1:5432/coffer',
    });
    expect(config.nats?.url).toBe('nats://127.0.0.1:4222');
    expect(config.services['kv']?.replicas).toBe(2);
    expect(config.listeners.map((l) => l.address)).toEqual(['127.0.0.1:8200', '127.0.0.1:9203']);
  });
});

describe('deploy/k8s/configmap.yaml', () => {
  /** The block scalar under `cluster.hcl: |`, de-indented (no YAML library is a dependency). */
  const embeddedHcl = (yamlText: string): string => {
    const lines = yamlText.split('\n');
    const start = lines.findIndex((l) => /^\s*cluster\.hcl:\s*\|\s*$/.test(l));
    expect(start).toBeGreaterThanOrEqual(0);
    const body = lines.slice(start + 1);
    const indent = /^(\s*)/.exec(body.find((l) => l.trim() !== '') ?? '')?.[1]?.length ?? 0;
    const end = body.findIndex((l) => l.trim() !== '' && /^(\s*)/.exec(l)![1]!.length < indent);
    return (end === -1 ? body : body.slice(0, end)).map((l) => l.slice(indent)).join('\n');
  };

  it('holds a valid server config that the Secret-provided variables complete', () => {
    const file = path.join(__dirname, '..', '..', 'deploy', 'k8s', 'configmap.yaml');
    const env = {
      COFFER_DATABASE_URL: 'postgres://coffer:pw@db:5432/coffer',
      COFFER_CLUSTER_SECRET: 's'.repeat(32),
    };
    const config = parseServerConfig(embeddedHcl(readFileSync(file, 'utf8')), { env });
    expect(config.storage).toMatchObject({ type: 'postgresql', connectionUrl: env.COFFER_DATABASE_URL });
    expect(config.clusterSecret).toBe(env.COFFER_CLUSTER_SECRET);
    expect(config.listeners.map((l) => [l.address, l.purpose])).toEqual([
      ['0.0.0.0:8200', ['api']],
      ['0.0.0.0:9203', ['ops']],
    ]);
    expect(config.controller.gracefulShutdownWaitMs).toBe(5000);
  });
});
