import { generatePassword, passwordRulesProblem, PASSWORD_PREFIX } from './password-generator';

const rules = (length: number, formatter = '', password_policy = '') => ({
  length,
  formatter,
  password_policy,
});

describe('directory password generation', () => {
  it('defaults to 64 characters behind the ?@09AZ prefix', () => {
    const a = generatePassword(rules(64));
    const b = generatePassword(rules(64));
    expect(a).toHaveLength(64);
    expect(a.startsWith(PASSWORD_PREFIX)).toBe(true);
    expect(a.slice(6)).toMatch(/^[0-9A-Za-z]{58}$/);
    expect(a).not.toBe(b);
  });

  it("accepts length 14 and refuses 13 with Vault's text", () => {
    expect(passwordRulesProblem(rules(14))).toBeUndefined();
    expect(generatePassword(rules(14))).toHaveLength(14);
    expect(passwordRulesProblem(rules(13))).toBe(
      "it's not possible to generate a _secure_ password of length 13, please boost length to 14, though Vault recommends higher",
    );
  });

  it('puts the random part inside a formatter, without the prefix', () => {
    expect(passwordRulesProblem(rules(20, 'pre-{{PASSWORD}}-post'))).toBeUndefined();
    const password = generatePassword(rules(20, 'pre-{{PASSWORD}}-post'));
    expect(password).toMatch(/^pre-[0-9A-Za-z]{11}-post$/);
    expect(password).toHaveLength(20);
  });

  it('refuses formatters without exactly one field, too short, or with a policy', () => {
    expect(passwordRulesProblem(rules(20, 'nofield'))).toBe(
      'nofield must contain password replacement field of {{PASSWORD}}',
    );
    expect(passwordRulesProblem(rules(40, '{{PASSWORD}}{{PASSWORD}}'))).toBe(
      '{{PASSWORD}}{{PASSWORD}} must contain ONE password replacement field of {{PASSWORD}}',
    );
    expect(passwordRulesProblem(rules(10, 'abcdef{{PASSWORD}}'))).toMatch(
      /isn't possible to generate a sufficiently complex/,
    );
    expect(passwordRulesProblem(rules(64, '', 'strong'))).toBe(
      'cannot set password_policy and either length or formatter',
    );
    expect(passwordRulesProblem(rules(0, '', 'strong'))).toBeUndefined();
  });
});
