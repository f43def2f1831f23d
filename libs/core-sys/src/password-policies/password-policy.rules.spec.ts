import {
  decodePolicyText,
  generateFromPolicy,
  parsePasswordPolicy,
  validatePolicyText,
} from './password-policy.rules';

const POLICY = `
length = 20
rule "charset" {
  charset = "abcdefghijklmnopqrstuvwxyz"
  min-chars = 1
}
rule "charset" {
  charset = "0123456789"
  min-chars = 4
}
`;

describe('password policies', () => {
  it('parses Vault HCL and generates passwords that meet every rule', () => {
    const policy = parsePasswordPolicy(POLICY);
    expect(policy.length).toBe(20);
    for (let i = 0; i < 50; i++) {
      const password = generateFromPolicy(policy);
      expect(password).toMatch(/^[a-z0-9]{20}$/);
      expect(password.replace(/[^0-9]/g, '').length).toBeGreaterThanOrEqual(4);
      expect(password.replace(/[^a-z]/g, '').length).toBeGreaterThanOrEqual(1);
    }
  });

  it('takes base64 of the HCL as well', () => {
    expect(decodePolicyText(Buffer.from(POLICY).toString('base64'))).toBe(POLICY);
    expect(decodePolicyText(POLICY)).toBe(POLICY);
  });

  it("refuses what Vault refuses, with Vault's texts", () => {
    expect(validatePolicyText(POLICY)).toBeUndefined();
    expect(validatePolicyText('length = 3\nrule "charset" { charset = "ab" }')).toBe(
      'passwords must be between 4 and 100 characters',
    );
    expect(validatePolicyText('length = 5\nrule "charset" { charset = "ab"\n min-chars = 6 }')).toBe(
      'unable to generate password from provided policy in 1s: are the rules impossible?',
    );
    expect(validatePolicyText('length = 8\nrule "other" { x = 1 }')).toBe(
      'invalid password policy: unable to parse rules: unrecognized rule type other',
    );
    expect(validatePolicyText('length = ')).toMatch(/^invalid password policy: unable to decode/);
  });
});
