import { ConfigError, listenerFor, parseServerConfig, requireClusterBlocks } from './index';

function issues(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).issues;
  }
  throw new Error('expected a ConfigError');
}

const tlsListener = (extra: string) =>
  `listener "tcp" {\n address = "127.0.0.1:8200"\n tls_cert_file = "c.pem"\n tls_key_file = "k.pem"\n${extra}\n}\n`;

describe('listener TLS settings (Vault keys)', () => {
  it('maps tls_min_version to Node names, default tls12', () => {
    const api = (extra: string) => listenerFor(parseServerConfig(tlsListener(extra)), 'api');
    expect(api('').tlsMinVersion).toBe('TLSv1.2');
    expect(api('tls_min_version = "tls10"').tlsMinVersion).toBe('TLSv1');
    expect(api('tls_min_version = "tls11"').tlsMinVersion).toBe('TLSv1.1');
    expect(api('tls_min_version = "tls13"').tlsMinVersion).toBe('TLSv1.3');
    expect(issues(() => api('tls_min_version = "ssl3"'))).toEqual([
      'listener[0].tls_min_version: tls_min_version must be one of tls10, tls11, tls12, tls13',
    ]);
  });

  it('reads the client CA and whether a client certificate is required', () => {
    const api = listenerFor(
      parseServerConfig(
        tlsListener('tls_client_ca_file = "ca.pem"\n tls_require_and_verify_client_cert = "true"'),
      ),
      'api',
    );
    expect(api).toMatchObject({ tlsClientCaFile: 'ca.pem', tlsRequireClientCert: true });
    expect(issues(() => parseServerConfig(tlsListener('tls_require_and_verify_client_cert = true')))).toEqual(
      [
        'listener[0].tls_require_and_verify_client_cert: tls_require_and_verify_client_cert needs tls_client_ca_file',
      ],
    );
  });

  it('accepts the TLS keys on ops listeners too', () => {
    const ops = listenerFor(
      parseServerConfig(tlsListener('purpose = "ops"\n tls_client_ca_file = "ca.pem"')),
      'ops',
    );
    expect(ops).toMatchObject({
      tlsCertFile: 'c.pem',
      tlsClientCaFile: 'ca.pem',
      tlsRequireClientCert: false,
    });
  });
});

describe('requireClusterBlocks', () => {
  const api = 'listener "tcp" {\n address = "127.0.0.1:8200"\n tls_disable = true\n}\n';
  const ops = 'listener "tcp" {\n address = "127.0.0.1:9203"\n purpose = "ops"\n tls_disable = true\n}\n';

  it('needs a controller block, an api and an ops listener', () => {
    expect(issues(() => requireClusterBlocks(parseServerConfig('', { source: 'c.hcl' })))).toEqual([
      'a controller block is required, e.g. controller { graceful_shutdown_wait_duration = "10s" }',
      'a listener with purpose = "api" is required',
      'a listener with purpose = "ops" is required',
    ]);
    expect(issues(() => requireClusterBlocks(parseServerConfig(`${api}controller {}`)))).toEqual([
      'a listener with purpose = "ops" is required',
    ]);
    expect(() => requireClusterBlocks(parseServerConfig(`${api}${ops}controller {}`))).not.toThrow();
  });

  it('an empty controller block counts; graceful_shutdown_wait_duration is off by default', () => {
    const config = parseServerConfig(`${api}${ops}controller {}`);
    expect(config.controllerDefined).toBe(true);
    expect(config.controller.gracefulShutdownWaitMs).toBe(0);
  });
});
