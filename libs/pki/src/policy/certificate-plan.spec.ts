import { pkiIssueBodySchema, type PkiRoleData } from '@coffer/contracts/pki';
import { emptySans } from '../crypto/general-names';
import { defaultRole } from '../roles/role-defaults';
import { planCertificate, type PlanInput } from './certificate-plan';
import { extKeyUsageOids, keyUsageFlags, policyOids } from './usages';

const now = new Date('2030-01-01T00:00:00Z');
const role = (over: Partial<PkiRoleData> = {}): PkiRoleData => ({
  ...defaultRole(),
  allowed_domains: ['example.com'],
  allow_subdomains: true,
  ...over,
});
const input = (body: Record<string, unknown>, over: Partial<PlanInput> = {}): PlanInput => ({
  role: role(),
  body: pkiIssueBodySchema.parse(body),
  mountTtl: { defaultTtl: 3600, maxTtl: 86_400 },
  now,
  caNotAfter: new Date('2031-01-01T00:00:00Z'),
  ...over,
});
const seconds = (a: Date, b: Date) => (a.getTime() - b.getTime()) / 1000;

describe('planCertificate (Vault generateCreationBundle)', () => {
  it('uses the request ttl, else the role ttl, else the mount default; clamps to max_ttl with a warning', () => {
    expect(seconds(planCertificate(input({ common_name: 'a.example.com', ttl: '2h' })).notAfter, now)).toBe(
      7200,
    );
    expect(
      seconds(
        planCertificate(input({ common_name: 'a.example.com' }, { role: role({ ttl: 600 }) })).notAfter,
        now,
      ),
    ).toBe(600);
    expect(seconds(planCertificate(input({ common_name: 'a.example.com' })).notAfter, now)).toBe(3600);
    const clamped = planCertificate(
      input({ common_name: 'a.example.com', ttl: '5h' }, { role: role({ max_ttl: 3600 }) }),
    );
    expect(seconds(clamped.notAfter, now)).toBe(3600);
    expect(clamped.warnings[0]).toContain('is longer than permitted maxTTL');
    expect(seconds(now, planCertificate(input({ common_name: 'a.example.com' })).notBefore)).toBe(30);
  });

  it("refuses a notAfter beyond the CA's and a ttl with not_after", () => {
    expect(() =>
      planCertificate(
        input({ common_name: 'a.example.com', ttl: '87600h' }, { mountTtl: { defaultTtl: 1, maxTtl: 1e9 } }),
      ),
    ).toThrow(/beyond the expiration of the CA certificate at 2031-01-01T00:00:00Z/);
    expect(() =>
      planCertificate(input({ common_name: 'a.example.com', ttl: '1h', not_after: '2030-02-01T00:00:00Z' })),
    ).toThrow('Either ttl or not_after should be provided');
  });

  it('puts the CN in the SANs unless excluded, and sorts names into DNS and email', () => {
    const plan = planCertificate(
      input({ common_name: 'a.example.com', alt_names: 'b.example.com,me@mail.example.com' }),
    );
    expect(plan.sans).toMatchObject({
      dns: ['a.example.com', 'b.example.com'],
      email: ['me@mail.example.com'],
    });
    expect(
      planCertificate(input({ common_name: 'a.example.com', exclude_cn_from_sans: true })).sans.dns,
    ).toEqual([]);
  });

  it('requires a CN unless require_cn is false, and takes CSR names with use_csr_sans', () => {
    expect(() => planCertificate(input({}))).toThrow(/the common_name field is required/);
    expect(planCertificate(input({}, { role: role({ require_cn: false }) })).subject.commonName).toBe('');
    const csr = {
      subject: Buffer.alloc(0),
      commonName: 'csr.example.com',
      subjectSerialNumber: '',
      spki: Buffer.alloc(0),
      publicKey: undefined as never,
      sans: { ...emptySans(), dns: ['x.example.com'], ip: ['10.0.0.1'] },
      requestsCa: false,
    };
    const plan = planCertificate(
      input({ common_name: 'ignored.example.com', alt_names: 'y.example.com' }, { csr }),
    );
    expect(plan.subject.commonName).toBe('csr.example.com');
    expect(plan.sans.dns).toEqual(['x.example.com', 'csr.example.com']);
    expect(plan.sans.ip).toEqual(['10.0.0.1']);
    expect(() => planCertificate(input({}, { csr, role: role({ allow_ip_sans: false }) }))).toThrow(
      /provided some via CSR/,
    );
  });

  it('maps key usages, extended key usages and policy OIDs as Vault does', () => {
    expect(keyUsageFlags(['DigitalSignature', 'keyencipherment', 'CertSign', 'nonsense'])).toBe(1 | 4 | 32);
    expect(
      extKeyUsageOids({
        server_flag: true,
        client_flag: false,
        code_signing_flag: false,
        email_protection_flag: true,
        ext_key_usage: ['TimeStamping', 'serverauth'],
        ext_key_usage_oids: ['1.2.3.4'],
      }),
    ).toEqual(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.4', '1.3.6.1.5.5.7.3.8', '1.2.3.4']);
    expect(policyOids(['1.2.3', '{"oid":"1.2.4","notice":"x"}'])).toEqual({ oids: ['1.2.3', '1.2.4'] });
    expect(policyOids(['not-an-oid']).bad).toBe('not-an-oid');
  });
});
