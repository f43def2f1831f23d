import { renderBanner } from './banner';

describe('renderBanner', () => {
  const info = {
    apiUrl: 'http://127.0.0.1:8200',
    opsUrl: 'http://127.0.0.1:9203',
    dataDir: undefined,
    version: '0.1.0',
    unsealKey: 'c2hhcmU=',
    rootToken: 'root',
  };

  it('prints the unseal key and root token on lines of their own, exactly', () => {
    const lines = renderBanner(info).split('\n');
    expect(lines).toContain('Unseal Key: c2hhcmU=');
    expect(lines).toContain('Root Token: root');
  });

  it('names the addresses and the storage', () => {
    const text = renderBanner(info);
    expect(text).toContain('Api Address: http://127.0.0.1:8200');
    expect(text).toContain('Ops Address: http://127.0.0.1:9203');
    expect(text).toContain('Storage: pglite (in memory)');
    expect(text).toContain("export VAULT_ADDR='http://127.0.0.1:8200'");
  });

  it('says where the data lives when a data directory is used', () => {
    const text = renderBanner({ ...info, dataDir: '/tmp/coffer' });
    expect(text).toContain('Storage: pglite (/tmp/coffer)');
    expect(text).toContain('unseals itself at start');
  });
});
