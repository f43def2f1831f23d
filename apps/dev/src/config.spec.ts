import { ConfigError } from '@coffer/config';
import { devAppConfig } from './config';

describe('devAppConfig', () => {
  const load = (env: Record<string, string>) => devAppConfig.load({ argv: [], env });

  it('defaults to 127.0.0.1:8200 and 127.0.0.1:9203, in memory, with a random cluster secret', () => {
    const a = load({});
    expect(a).toMatchObject({
      apiAddress: '127.0.0.1:8200',
      opsAddress: '127.0.0.1:9203',
      maxRequestSize: 32 * 1024 * 1024,
    });
    expect(a.dataDir).toBeUndefined();
    expect(a.rootTokenId).toBeUndefined();
    expect(a.clusterSecret.length).toBeGreaterThanOrEqual(16);
    expect(load({}).clusterSecret).not.toBe(a.clusterSecret);
  });

  it('reads the COFFER_DEV_* and COFFER_OPS_LISTEN_ADDRESS variables', () => {
    const c = load({
      COFFER_DEV_LISTEN_ADDRESS: '127.0.0.1:18200',
      COFFER_OPS_LISTEN_ADDRESS: '127.0.0.1:19203',
      COFFER_DEV_ROOT_TOKEN_ID: 'root',
      COFFER_DEV_DATA_DIR: '/tmp/coffer-dev',
    });
    expect(c).toMatchObject({
      apiAddress: '127.0.0.1:18200',
      opsAddress: '127.0.0.1:19203',
      rootTokenId: 'root',
      dataDir: '/tmp/coffer-dev',
    });
  });

  it('reads the JSON limits and the engine time-out from the environment', () => {
    const c = load({
      COFFER_DEV_MAX_JSON_DEPTH: '20',
      COFFER_DEV_MAX_JSON_STRING_VALUE_LENGTH: '100',
      COFFER_DEV_MAX_JSON_OBJECT_ENTRY_COUNT: '30',
      COFFER_DEV_MAX_JSON_ARRAY_ELEMENT_COUNT: '40',
      COFFER_ENGINE_TIMEOUT: '5s',
    });
    expect(c.jsonLimits).toEqual({
      maxDepth: 20,
      maxStringValueLength: 100,
      maxObjectEntryCount: 30,
      maxArrayElementCount: 40,
    });
    expect(c.engineTimeoutMs).toBe(5000);
    expect(load({}).jsonLimits).toBeUndefined();
    expect(() => load({ COFFER_DEV_MAX_JSON_DEPTH: 'deep' })).toThrow(ConfigError);
  });

  it('rejects a malformed listen address', () => {
    expect(() => load({ COFFER_DEV_LISTEN_ADDRESS: 'localhost' })).toThrow(ConfigError);
  });
});
