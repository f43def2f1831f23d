import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ENGINES } from '@coffer/engines';
import { parseServerConfig, requireClusterBlocks } from '@coffer/config';
import { helmBinary } from './helm-binary';
import { HELM_SERVICES_FILE, renderHelmServices } from './helm-services';

// The Helm chart, checked offline: `helm lint --strict`, `helm template` with the default and the
// optional parts switched on, every rendered manifest validated against the Kubernetes schemas
// (tools/validate-k8s.ts), and the rendered server config parsed like the apps parse it.
const ROOT = path.join(__dirname, '..', '..');
const CHART = path.join(ROOT, 'deploy', 'helm', 'coffer');
const EXTERNAL = ['--set', 'secrets.databaseUrl=postgres://coffer@db.example:5432/coffer'];
const BUNDLED = [
  '--set',
  'nats.enabled=true',
  '--set',
  'postgresql.cnpg.enabled=true',
  '--set',
  'tls.enabled=true',
  '--set',
  'tls.secretName=coffer-tls',
  '--set',
  'tls.ops=true',
  '--set',
  'tls.clientCA=true',
  '--set',
  'tls.minVersion=tls13',
  '--set',
  'telemetry.otlpEndpoint=http://otel-collector.observability:4318',
  '--set',
  'services.kv.replicas=5',
  '--set',
  'services.kv.autoscaling.enabled=false',
];

interface K8s {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}

jest.setTimeout(180_000);

let helm: string;
const run = (cmd: string, args: string[], input?: string) => {
  const res = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', input, maxBuffer: 64 * 1024 * 1024 });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
};
const template = (args: string[]) => {
  const res = run(helm, ['template', 'rel', CHART, '--namespace', 'vault', ...args]);
  if (res.status !== 0) throw new Error(`helm template failed: ${res.stderr}`);
  return {
    text: res.stdout,
    docs: parseAllDocuments(res.stdout)
      .map((d) => d.toJS() as K8s)
      .filter(Boolean),
  };
};
const validate = (text: string) =>
  run(
    process.execPath,
    ['-r', './tools/register.js', 'tools/validate-k8s.ts', '--skip-kind', 'Cluster'],
    text,
  );
const names = (docs: K8s[], kind: string) => docs.filter((d) => d.kind === kind).map((d) => d.metadata.name);
const serverConfig = (docs: K8s[]) => {
  const map = docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'rel-coffer-config');
  return parseServerConfig(map?.data?.['cluster.hcl'] ?? '', { source: 'cluster.hcl' });
};
const expected = ['gateway', ...ENGINES.map((e) => e.name)];

beforeAll(() => {
  helm = helmBinary(ROOT);
});

describe(HELM_SERVICES_FILE, () => {
  it('is the render of ENGINES (run `npm run deploy:render` after changing the list)', () => {
    expect(readFileSync(path.join(ROOT, HELM_SERVICES_FILE), 'utf8')).toBe(renderHelmServices(ENGINES));
  });
});

describe('deploy/helm/coffer', () => {
  it('passes helm lint --strict, with external and with bundled dependencies', () => {
    for (const args of [EXTERNAL, BUNDLED]) {
      const res = run(helm, ['lint', '--strict', CHART, ...args]);
      expect(`${res.stdout}${res.stderr}`).toContain('0 chart(s) failed');
      expect(res.status).toBe(0);
    }
  });

  it('renders a Deployment, a PodDisruptionBudget and probes on /health for every service', () => {
    const { text, docs } = template(EXTERNAL);
    const deployments = names(docs, 'Deployment');
    expect(deployments).toEqual(expected.map((n) => `rel-coffer-${n}`));
    expect(names(docs, 'PodDisruptionBudget')).toEqual(deployments);
    // autoscaled as the engine descriptors say; core-sys (the barrier owner) runs one replica
    expect(names(docs, 'HorizontalPodAutoscaler')).toEqual(
      ['gateway', ...ENGINES.filter((e) => e.deploy.autoscale).map((e) => e.name)].map(
        (n) => `rel-coffer-${n}`,
      ),
    );
    for (const d of docs.filter((x) => x.kind === 'Deployment')) {
      const yaml = JSON.stringify(d);
      expect(yaml).toContain('"readinessProbe":{"httpGet":{"path":"/health","port":"ops","scheme":"HTTP"}');
      expect(yaml).toContain('"livenessProbe":{"httpGet":{"path":"/health","port":"ops","scheme":"HTTP"}');
    }
    expect(names(docs, 'Service')).toEqual(['rel-coffer-gateway']);
    expect(validate(text)).toMatchObject({ status: 0 });
    // nothing of the optional parts
    expect(names(docs, 'StatefulSet')).toEqual([]);
    expect(names(docs, 'Cluster')).toEqual([]);
  });

  it('renders a server config the apps accept (controller block, api and ops listeners)', () => {
    const config = serverConfig(template(EXTERNAL).docs);
    expect(() => requireClusterBlocks(config)).not.toThrow();
    expect(config.controller.gracefulShutdownWaitMs).toBe(5000);
    expect(config.nats?.url).toBe('nats://nats:4222');
    expect(config.apiAddr).toBe('http://rel-coffer-gateway.vault.svc:8200');
    expect(config.listeners.every((l) => l.tlsDisable)).toBe(true);
  });

  it('bundles NATS (official chart, JetStream) and a CloudNativePG cluster, with TLS and telemetry', () => {
    const { text, docs } = template(BUNDLED);
    expect(names(docs, 'StatefulSet')).toEqual(['rel-nats']);
    expect(text).toContain('"jetstream"');
    expect(names(docs, 'Cluster')).toEqual(['rel-coffer-pg']);
    const kv = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'rel-coffer-kv');
    expect(kv?.spec?.['replicas']).toBe(5);
    expect(names(docs, 'HorizontalPodAutoscaler')).not.toContain('rel-coffer-kv');
    expect(JSON.stringify(kv)).toContain('"name":"rel-coffer-pg-app","key":"uri"');
    expect(JSON.stringify(kv)).toContain('"scheme":"HTTPS"');
    const config = serverConfig(docs);
    expect(config.nats?.url).toBe('nats://rel-nats.vault.svc:4222');
    expect(config.telemetry.otlpEndpoint).toBe('http://otel-collector.observability:4318');
    const [api, ops] = config.listeners;
    expect(api).toMatchObject({
      tlsDisable: false,
      tlsCertFile: '/etc/coffer/tls/tls.crt',
      tlsMinVersion: 'TLSv1.3',
      tlsClientCaFile: '/etc/coffer/tls/ca.crt',
    });
    expect(ops).toMatchObject({ tlsDisable: false, tlsKeyFile: '/etc/coffer/tls/tls.key' });
    const result = validate(text);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^\d+ valid, 0 invalid, 1 skipped \(Cluster\/rel-coffer-pg\)/);
  });

  it('takes secrets from an existing Secret, and refuses to render without a database', () => {
    const { docs } = template(['--set', 'secrets.existingSecret=prod-coffer']);
    expect(names(docs, 'Secret')).toEqual([]);
    expect(JSON.stringify(docs)).toContain('"name":"prod-coffer","key":"cluster-secret"');
    const bare = run(helm, ['template', 'rel', CHART]);
    expect(bare.status).not.toBe(0);
    expect(bare.stderr).toContain(
      'secrets.databaseUrl (or secrets.existingSecret, or postgresql.cnpg.enabled) is required',
    );
    const typo = run(helm, ['template', 'rel', CHART, ...EXTERNAL, '--set', 'services.kvv.replicas=2']);
    expect(typo.stderr).toContain('services.kvv: no such service');
  });

  it('the schema validation rejects an invalid manifest', () => {
    const { text } = template(EXTERNAL);
    const broken = text.replace(/replicas: 1\n/, 'replicas: one\n');
    expect(broken).not.toBe(text);
    const result = validate(broken);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('invalid: Deployment/rel-coffer-core-sys');
  });
});
