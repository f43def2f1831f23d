import { join } from 'node:path';
import { z } from 'zod';
import {
  CONFIG_EXIT_CODE,
  ConfigError,
  configPathFromArgs,
  defineAppConfig,
  listenerFor,
  loadConfig,
} from './index';

const CLUSTER = join(__dirname, '..', 'examples', 'cluster.hcl');

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('configPathFromArgs', () => {
  it.each([
    [['-config', 'a.hcl'], 'a.hcl'],
    [['-config=a.hcl'], 'a.hcl'],
    [['--config', 'a.hcl'], 'a.hcl'],
    [['--config=a.hcl', '--verbose'], 'a.hcl'],
    [['--other', 'x'], undefined],
    [[], undefined],
  ])('%j -> %s', (argv, expected) => {
    expect(configPathFromArgs(argv, {})).toBe(expected);
  });

  it('falls back to COFFER_CONFIG, the flag wins', () => {
    expect(configPathFromArgs([], { COFFER_CONFIG: 'env.hcl' })).toBe('env.hcl');
    expect(configPathFromArgs(['-config', 'flag.hcl'], { COFFER_CONFIG: 'env.hcl' })).toBe('flag.hcl');
    expect(configPathFromArgs([], { COFFER_CONFIG: '' })).toBeUndefined();
  });

  it('rejects a missing value and repeated flags', () => {
    expect(configError(() => configPathFromArgs(['-config'], {})).issues).toEqual([
      '-config needs a file path: -config <file>',
    ]);
    expect(configError(() => configPathFromArgs(['--config', '--x'], {})).issues).toEqual([
      '--config needs a file path: --config <file>',
    ]);
    expect(configError(() => configPathFromArgs(['-config=a', '-config=b'], {})).issues).toEqual([
      'only one config file may be given, got: a, b',
    ]);
  });
});

describe('loadConfig', () => {
  it('gives dev defaults without a config file', () => {
    const config = loadConfig({ argv: [], env: {} });
    expect(config).toMatchObject({
      dev: {},
      listeners: [
        { address: '127.0.0.1:8200', purpose: ['api'], tlsDisable: true },
        { address: '127.0.0.1:9203', purpose: ['ops'], tlsDisable: true },
      ],
      storage: { type: 'pglite' },
      apiAddr: 'http://127.0.0.1:8200',
      logLevel: 'info',
    });
    expect(config.source).toBeUndefined();
    expect(config.nats).toBeUndefined();
  });

  it('reads the dev variables', () => {
    const config = loadConfig({
      argv: [],
      env: {
        COFFER_DEV_LISTEN_ADDRESS: '0.0.0.0:8300',
        COFFER_OPS_LISTEN_ADDRESS: '127.0.0.1:9300',
        COFFER_DEV_ROOT_TOKEN_ID: 'root',
        COFFER_DEV_DATA_DIR: '/tmp/coffer',
        COFFER_LOG_LEVEL: 'debug',
      },
    });
    expect(config).toMatchObject({
      dev: { rootTokenId: 'root', dataDir: '/tmp/coffer' },
      listeners: [{ address: '0.0.0.0:8300' }, { address: '127.0.0.1:9300' }],
      storage: { type: 'pglite', path: '/tmp/coffer' },
      apiAddr: 'http://0.0.0.0:8300',
      logLevel: 'debug',
    });
  });

  it('lets COFFER_DATABASE_URL and COFFER_NATS_URL turn dev mode into a clustered setup', () => {
    const config = loadConfig({
      argv: [],
      env: {
        COFFER_DATABASE_URL: 'postgres://postgres@127.0.0.1/x',
        COFFER_NATS_URL: 'nats://127.0.0.1:4222',
      },
    });
    expect(config.storage).toEqual({
      type: 'postgresql',
      connectionUrl: 'postgres://postgres@127.0.0.1/x',
      maxConnections: 10,
    });
    expect(config.nats).toEqual({ url: 'nats://127.0.0.1:4222', subjectPrefix: 'coffer' });
  });

  it('loads the file named on the command line, with env overrides', () => {
    const config = loadConfig({ argv: ['-config', CLUSTER], env: { COFFER_SUBJECT_PREFIX: 'test-123' } });
    expect(config.source).toBe(CLUSTER);
    expect(config.dev).toBeNull();
    expect(config.nats?.subjectPrefix).toBe('test-123');
  });

  it('reports invalid env values like file values', () => {
    const e = configError(() =>
      loadConfig({ argv: [], env: { COFFER_API_ADDR: 'nope', COFFER_NATS_URL: 'http://x' } }),
    );
    expect(e.issues).toEqual(
      expect.arrayContaining([
        'api_addr: must be an http:// or https:// URL',
        'nats.url: must be a nats:// URL (comma-separate several servers)',
      ]),
    );
  });
});

describe('defineAppConfig', () => {
  const gatewayConfig = defineAppConfig(
    z.object({
      api: z.object({ address: z.string(), maxRequestSize: z.number().int().positive() }),
      natsUrl: z.string().optional(),
      cacheTtlMs: z.coerce.number().int().min(1),
      secret: z.string().min(16),
    }),
    (server, env) => ({
      api: listenerFor(server, 'api'),
      natsUrl: server.nats?.url,
      cacheTtlMs: env.GATEWAY_CACHE_TTL_MS ?? 5000,
      secret: server.clusterSecret,
    }),
  );

  it('builds and validates the app schema from the server config and the env', () => {
    const config = gatewayConfig.load({ argv: ['-config', CLUSTER], env: { GATEWAY_CACHE_TTL_MS: '250' } });
    expect(config).toEqual({
      api: expect.objectContaining({ address: '127.0.0.1:8200', maxRequestSize: 33554432 }),
      natsUrl: 'nats://127.0.0.1:4222',
      cacheTtlMs: 250,
      secret: 'local-cluster-secret-change-me-0123456789',
    });
  });

  it('lists every invalid app field', () => {
    const e = configError(() => gatewayConfig.load({ argv: [], env: { GATEWAY_CACHE_TTL_MS: '0' } }));
    expect(e.issues).toEqual([
      'cacheTtlMs: Too small: expected number to be >=1',
      'secret: Invalid input: expected string, received undefined',
    ]);
  });

  it('loadOrExit prints the problems and exits with code 2', () => {
    const exit = jest.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const write = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      gatewayConfig.loadOrExit({ argv: [], env: {} });
      expect(exit).toHaveBeenCalledWith(CONFIG_EXIT_CODE);
      expect(String(write.mock.calls[0]?.[0])).toContain('secret: Invalid input');
    } finally {
      exit.mockRestore();
      write.mockRestore();
    }
  });
});
