import { decideCrlConfig } from './crl-config.decider';
import { DEFAULT_CRL_CONFIG } from './settings.events';

const refused = (input: Parameters<typeof decideCrlConfig>[1], current = DEFAULT_CRL_CONFIG) => {
  try {
    decideCrlConfig(current, input);
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
};

describe('decideCrlConfig', () => {
  it('keeps what is not given and takes what is', () => {
    const next = decideCrlConfig(DEFAULT_CRL_CONFIG, {
      auto_rebuild: true,
      unified_crl: true,
      unified_crl_on_existing_paths: true,
      cross_cluster_revocation: true,
    });
    expect(next).toEqual({
      ...DEFAULT_CRL_CONFIG,
      auto_rebuild: true,
      unified_crl: true,
      unified_crl_on_existing_paths: true,
      cross_cluster_revocation: true,
    });
    expect(decideCrlConfig(next, { expiry: '48h' })).toEqual({ ...next, expiry: '48h' });
  });

  it("refuses with Vault's texts, in its order", () => {
    expect(refused({ unified_crl_on_existing_paths: true, auto_rebuild: true })).toBe(
      'unified_crl_on_existing_paths cannot be enabled if unified_crl is disabled',
    );
    expect(refused({ unified_crl: true })).toBe(
      'unified_crl=true requires auto_rebuild=true, as unified CRLs cannot be rebuilt on every revocation.',
    );
    expect(refused({ cross_cluster_revocation: true, unified_crl: true })).toBe(
      'Global, cross-cluster revocation queue cannot be enabled when auto rebuilding is disabled as the local cluster may not have the certificate entry!',
    );
    expect(refused({ auto_rebuild: true, expiry: '12h' })).toBe(
      'CRL auto-rebuilding grace period (12h) must be strictly shorter than CRL expiry (12h) value when auto-rebuilding of CRLs is enabled',
    );
    expect(refused({ auto_rebuild_grace_period: 'soon' })).toMatch(
      /^given auto_rebuild_grace_period could not be decoded: /,
    );
    expect(refused({ expiry: 'x' })).toMatch(/^given expiry could not be decoded: /);
  });

  it('turning auto_rebuild off with unified_crl on is refused too', () => {
    const on = decideCrlConfig(DEFAULT_CRL_CONFIG, { auto_rebuild: true, unified_crl: true });
    expect(refused({ auto_rebuild: false }, on)).toMatch(/^unified_crl=true requires auto_rebuild=true/);
  });
});
