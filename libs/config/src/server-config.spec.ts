import { join } from 'node:path';
import {
  ConfigError,
  DEFAULT_MAX_REQUEST_SIZE,
  listenerFor,
  loadServerConfigFile,
  parseServerConfig,
  type ServerConfig,
} from './index';

const EXAMPLES = join(__dirname, '..', 'examples');

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

const minimal = 'listener "tcp" {\n address = "127.0.0.1:8200"\n tls_disable = true\n}\n';

describe('parseServerConfig', () => {
  it('parses a full Vault/Boundary-style file', () => {
    const config = parseServerConfig(
      `
      log_level = "DEBUG"
      cluster_secret = "0123456789abcdef0123"
      cluster_name = "c1"
      api_addr = "https://vault.example.com:8200"
      ui = true
      disable_mlock = true
      default_lease_ttl = "1h"
      max_lease_ttl = "24h"
      listener "tcp" {
        address = "0.0.0.0:8200"
        purpose = "api"
        tls_cert_file = "/certs/cert.pem"
        tls_key_file = "/certs/key.pem"
        tls_min_version = "tls13"
        tls_client_ca_file = "/certs/clients.pem"
        tls_require_and_verify_client_cert = true
        max_request_size = 1024
      }
      listener "tcp" {
        address = "[::1]:9203"
        purpose = ["ops"]
        tls_disable = "true"
        max_request_size = -1
      }
      storage "postgresql" {
        connection_url = "postgres://u@db:5432/coffer"
        max_connections = 20
      }
      nats { url = "nats://n1:4222,nats://n2:4222", subject_prefix = "coffer.prod" }
      controller { graceful_shutdown_wait_duration = "1.5s" }
      telemetry { otlp_endpoint = "http://otel:4318" }
      service "kv" { replicas = 3 }
      service "core-sys" {}
      `,
      { source: 'server.hcl' },
    );
    expect(config).toEqual<ServerConfig>({
      source: 'server.hcl',
      dev: null,
      logLevel: 'debug',
      clusterSecret: '0123456789abcdef0123',
      clusterName: 'c1',
      apiAddr: 'https://vault.example.com:8200',
      ui: true,
      defaultLeaseTtl: 3600,
      maxLeaseTtl: 86400,
      listeners: [
        {
          type: 'tcp',
          address: '0.0.0.0:8200',
          purpose: ['api'],
          tlsDisable: false,
          tlsCertFile: '/certs/cert.pem',
          tlsKeyFile: '/certs/key.pem',
          tlsMinVersion: 'TLSv1.3',
          tlsClientCaFile: '/certs/clients.pem',
          tlsRequireClientCert: true,
          maxRequestSize: 1024,
        },
        {
          type: 'tcp',
          address: '[::1]:9203',
          purpose: ['ops'],
          tlsDisable: true,
          tlsCertFile: undefined,
          tlsKeyFile: undefined,
          tlsMinVersion: 'TLSv1.2',
          tlsClientCaFile: undefined,
          tlsRequireClientCert: false,
          maxRequestSize: Number.MAX_SAFE_INTEGER,
        },
      ],
      storage: { type: 'postgresql', connectionUrl: 'postgres://u@db:5432/coffer', maxConnections: 20 },
      nats: { url: 'nats://n1:4222,nats://n2:4222', subjectPrefix: 'coffer.prod' },
      controller: { gracefulShutdownWaitMs: 1500 },
      controllerDefined: true,
      telemetry: { otlpEndpoint: 'http://otel:4318' },
      services: { kv: { replicas: 3 }, 'core-sys': { replicas: 1 } },
    });
  });

  it('reads the namespace settings (administrative namespace, managed root)', () => {
    const config = parseServerConfig(
      `${minimal}administrative_namespace_path = "ops/"\nmanaged_namespace_root = "admin"\n`,
    );
    expect(config).toMatchObject({ administrativeNamespacePath: 'ops/', managedNamespaceRoot: 'admin' });
    expect(parseServerConfig(minimal).managedNamespaceRoot).toBeUndefined();
  });

  it('applies defaults', () => {
    const config = parseServerConfig(minimal);
    expect(config).toMatchObject({
      dev: null,
      logLevel: 'info',
      apiAddr: 'http://127.0.0.1:8200',
      storage: { type: 'pglite' },
      controller: { gracefulShutdownWaitMs: 0 },
      controllerDefined: false,
      telemetry: {},
      services: {},
      defaultLeaseTtl: 2764800,
      maxLeaseTtl: 2764800,
      ui: false,
    });
    expect(config.listeners[0]).toMatchObject({ purpose: ['api'], maxRequestSize: DEFAULT_MAX_REQUEST_SIZE });
    expect(config.nats).toBeUndefined();
    expect(config.source).toBeUndefined();
    expect(parseServerConfig('storage "pglite" { path = "/data" }').storage).toEqual({
      type: 'pglite',
      path: '/data',
    });
    expect(parseServerConfig('nats { url = "nats://x:4222" }').nats).toEqual({
      url: 'nats://x:4222',
      subjectPrefix: 'coffer',
    });
  });

  it('applies environment overrides when given an env', () => {
    const env = {
      COFFER_DATABASE_URL: 'postgresql://env@db/x',
      COFFER_NATS_URL: 'nats://env:4222',
      COFFER_SUBJECT_PREFIX: 'run42',
      COFFER_CLUSTER_SECRET: 'secret-from-env-0123',
      COFFER_API_ADDR: 'http://api.env:8200',
      COFFER_OTLP_ENDPOINT: 'http://otel.env:4318',
      COFFER_LOG_LEVEL: 'warn',
      COFFER_UNRELATED: 'x',
    };
    const config = parseServerConfig(`${minimal}storage "pglite" {}\nnats { subject_prefix = "file" }`, {
      env,
    });
    expect(config).toMatchObject({
      storage: { type: 'postgresql', connectionUrl: 'postgresql://env@db/x', maxConnections: 10 },
      nats: { url: 'nats://env:4222', subjectPrefix: 'run42' },
      clusterSecret: 'secret-from-env-0123',
      apiAddr: 'http://api.env:8200',
      telemetry: { otlpEndpoint: 'http://otel.env:4318' },
      logLevel: 'warn',
    });
    const keep = parseServerConfig(
      'storage "postgresql" {\n connection_url = "postgres://f/x"\n max_connections = 3\n}',
      {
        env: { COFFER_DATABASE_URL: 'postgres://e/y', COFFER_SUBJECT_PREFIX: 'ignored-without-nats' },
      },
    );
    expect(keep.storage).toEqual({ type: 'postgresql', connectionUrl: 'postgres://e/y', maxConnections: 3 });
    expect(keep.nats).toBeUndefined();
    expect(parseServerConfig(minimal, { env: { COFFER_LOG_LEVEL: '' } }).logLevel).toBe('info');
  });

  it('lists every invalid field at once, with paths', () => {
    const e = configError(() =>
      parseServerConfig(
        `
        log_level = "loud"
        bogus = 1
        listener "tcp" { address = "localhost" }
        listener "udp" { address = "127.0.0.1:99999", tls_disable = true }
        storage "postgresql" {}
        controller { graceful_shutdown_wait_duration = "soon" }
        service "kv" { replicas = -1 }
        cluster_secret = "short"
        api_addr = "ftp://x"
        `,
        { source: 'bad.hcl' },
      ),
    );
    expect(e.source).toBe('bad.hcl');
    expect(e.issues).toEqual(
      expect.arrayContaining([
        'log_level: Invalid option: expected one of "trace"|"debug"|"info"|"warn"|"error"',
        'Unrecognized key: "bogus"',
        'listener[0].address: must be host:port, e.g. "127.0.0.1:8200"',
        'listener[1].type: only "tcp" listeners are supported',
        'storage.connection_url: connection_url is required (or set COFFER_DATABASE_URL)',
        'controller.graceful_shutdown_wait_duration: invalid duration: time: invalid duration "soon"',
        'service.kv.replicas: Too small: expected number to be >=0',
        'cluster_secret: cluster_secret must be at least 16 characters',
        'api_addr: must be an http:// or https:// URL',
      ]),
    );
    expect(e.message).toMatch(/^invalid configuration in bad.hcl:\n {2}- /);
  });

  it('requires TLS files unless tls_disable', () => {
    const e = configError(() => parseServerConfig('listener "tcp" { address = "127.0.0.1:8200" }'));
    expect(e.issues).toEqual([
      'listener[0].tls_disable: tls_cert_file and tls_key_file are required unless tls_disable = true',
    ]);
  });

  it('reports structural problems with line numbers', () => {
    const e = configError(() =>
      parseServerConfig(
        'listener { address = "127.0.0.1:1" }\nstorage "pglite" {}\nstorage "pglite" {}\nnats "x" {}\ndev {}\nservice "kv" {}\nservice "kv" {}',
      ),
    );
    expect(e.issues).toEqual([
      'listener: needs exactly one label, e.g. listener "tcp" { ... } (line 1)',
      'storage: only one storage block is allowed (line 3)',
      'nats: takes no label (line 4)',
      'dev: dev mode is what you get without a config file; it cannot be configured (line 5)',
      'service.kv: defined more than once (line 7)',
    ]);
  });

  it('reports HCL syntax errors with line and column', () => {
    expect(configError(() => parseServerConfig('listener "tcp" {\n address = 127.0.0.1\n}')).issues).toEqual([
      'At 2:12: invalid number "127.0.0.1"',
    ]);
    expect(
      configError(() => parseServerConfig('nats {\n url = "nats://a:1"\n url = "nats://b:1"\n}')).issues,
    ).toEqual(["At 3:2: duplicate attribute 'url' (first defined at 2:2)"]);
    expect(configError(() => parseServerConfig('log_level = "info"\nlog_level = "debug"')).issues).toEqual([
      'log_level: defined more than once or with the wrong syntax (line 2)',
    ]);
  });

  it('finds listeners by purpose', () => {
    const config = parseServerConfig(
      `${minimal}listener "tcp" {\n address = "127.0.0.1:9203"\n purpose = "ops"\n tls_disable = true\n}`,
    );
    expect(listenerFor(config, 'ops').address).toBe('127.0.0.1:9203');
    expect(listenerFor(config, 'api').address).toBe('127.0.0.1:8200');
    expect(configError(() => listenerFor(parseServerConfig(''), 'api')).issues).toEqual([
      'a listener with purpose = "api" is required',
    ]);
  });
});

describe('loadServerConfigFile', () => {
  it('loads the example cluster config', () => {
    const config = loadServerConfigFile(join(EXAMPLES, 'cluster.hcl'));
    expect(config.source).toBe(join(EXAMPLES, 'cluster.hcl'));
    expect(config.storage).toEqual({
      type: 'postgresql',
      connectionUrl: 'postgres://postgres@127.0.0.1:5432/coffer',
      maxConnections: 10,
    });
    expect(config.nats).toEqual({ url: 'nats://127.0.0.1:4222', subjectPrefix: 'coffer' });
    expect(config.listeners.map((l) => [l.address, l.purpose])).toEqual([
      ['127.0.0.1:8200', ['api']],
      ['127.0.0.1:9203', ['ops']],
    ]);
    expect(config.services).toEqual({
      gateway: { replicas: 2 },
      'core-sys': { replicas: 1 },
      kv: { replicas: 2 },
    });
    expect(config.controller.gracefulShutdownWaitMs).toBe(5000);
  });

  it('loads the example dev config', () => {
    const config = loadServerConfigFile(join(EXAMPLES, 'dev.hcl'), { env: {} });
    expect(config.storage).toEqual({ type: 'pglite', path: '.coffer/data' });
    expect(config.logLevel).toBe('debug');
  });

  it('fails clearly on a missing file', () => {
    const e = configError(() => loadServerConfigFile(join(EXAMPLES, 'nope.hcl')));
    expect(e.issues[0]).toMatch(/^cannot read config file: ENOENT/);
  });
});

describe('JSON limits and the engine time-out', () => {
  it('reads max_json_* per listener and engine_timeout from the controller block', () => {
    const config = parseServerConfig(`
      listener "tcp" {
        address = "127.0.0.1:8200"
        tls_disable = true
        max_json_depth = 50
        max_json_string_value_length = 4096
        max_json_object_entry_count = 100
        max_json_array_element_count = 200
      }
      controller { engine_timeout = "2.5s" }
    `);
    expect(listenerFor(config, 'api').jsonLimits).toEqual({
      maxDepth: 50,
      maxStringValueLength: 4096,
      maxObjectEntryCount: 100,
      maxArrayElementCount: 200,
    });
    expect(config.controller.engineTimeoutMs).toBe(2500);
  });

  it("leaves them unset by default (the gateway applies Vault's defaults)", () => {
    const config = parseServerConfig(minimal);
    expect(listenerFor(config, 'api').jsonLimits).toBeUndefined();
    expect(config.controller.engineTimeoutMs).toBeUndefined();
    expect(
      listenerFor(parseServerConfig(minimal.replace('}', 'max_json_depth = 7\n}')), 'api').jsonLimits,
    ).toEqual({ maxDepth: 7 });
  });

  it('takes COFFER_ENGINE_TIMEOUT and refuses nonsense', () => {
    expect(
      parseServerConfig(minimal, { env: { COFFER_ENGINE_TIMEOUT: '3s' } }).controller.engineTimeoutMs,
    ).toBe(3000);
    const e = configError(() =>
      parseServerConfig(
        minimal.replace('}', 'max_json_depth = 0\n}') + 'controller { engine_timeout = "0s" }\n',
      ),
    );
    expect(e.issues.join('\n')).toMatch(/listener\[0\]\.max_json_depth/);
    expect(e.issues.join('\n')).toMatch(/engine_timeout must be positive/);
  });
});
