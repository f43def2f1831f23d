import type { SentinelResult } from '@coffer/sentinel';
import { overrideRequested } from './sentinel-enforcer.service';
import { decideVerdict, denialText, egpPathMatches, type PolicyOutcome } from './sentinel-verdict';

const failed: SentinelResult = {
  passed: false,
  rules: [
    { name: 'ok', value: true, pos: { line: 1, column: 1 } },
    { name: 'hours', value: false, pos: { line: 2, column: 1 } },
    { name: 'main', value: false, pos: { line: 4, column: 1 } },
  ],
};
const passed: SentinelResult = { passed: true, rules: [] };
const outcome = (level: PolicyOutcome['level'], result = failed, name = 'p'): PolicyOutcome => ({
  kind: 'egp',
  name,
  level,
  result,
});
const NO_OVERRIDE = { requested: false, allowed: false };

describe('governing policy verdicts', () => {
  it('hard-mandatory failure denies, even with an allowed override', () => {
    const v = decideVerdict([outcome('hard-mandatory')], { requested: true, allowed: true });
    expect(v.denials).toHaveLength(1);
    expect(v.warnings).toEqual([]);
  });

  it('soft-mandatory failure denies unless the override is requested and allowed', () => {
    expect(decideVerdict([outcome('soft-mandatory')], NO_OVERRIDE).denials).toHaveLength(1);
    expect(
      decideVerdict([outcome('soft-mandatory')], { requested: true, allowed: false }).denials,
    ).toHaveLength(1);
    expect(
      decideVerdict([outcome('soft-mandatory')], { requested: false, allowed: true }).denials,
    ).toHaveLength(1);
    expect(decideVerdict([outcome('soft-mandatory')], { requested: true, allowed: true })).toEqual({
      denials: [],
      warnings: ['soft-mandatory egp "p" failed and was overridden'],
    });
  });

  it('advisory failure only warns; passing policies say nothing', () => {
    expect(decideVerdict([outcome('advisory'), outcome('hard-mandatory', passed)], NO_OVERRIDE)).toEqual({
      denials: [],
      warnings: ['advisory egp "p" failed'],
    });
  });

  it('every applicable policy runs: each denial is reported', () => {
    const v = decideVerdict(
      [
        outcome('hard-mandatory', failed, 'a'),
        outcome('soft-mandatory', failed, 'b'),
        outcome('advisory', failed, 'c'),
      ],
      NO_OVERRIDE,
    );
    expect(v.denials.map((d) => d.split('\n')[0])).toEqual([
      'egp standard policy "root/a" evaluation resulted in denial.',
      'egp standard policy "root/b" evaluation resulted in denial.',
    ]);
    expect(v.warnings).toEqual(['advisory egp "c" failed']);
  });

  it('the denial names the policy, the error and the rules that failed', () => {
    const text = denialText(outcome('hard-mandatory', { ...failed, error: 'boom' }));
    expect(text).toContain('The specific error was:\nboom');
    expect(text).toContain('Rule "hours" (root/p:2:1) = false');
    expect(text).toContain('Rule "main" (root/p:4:1) = false');
    expect(text).not.toContain('Rule "ok"');
  });

  it.each([
    ['*', 'anything/at/all', true],
    ['secret/*', 'secret/data/x', true],
    ['secret/*', 'secret', false],
    ['secret/*', 'secretive/x', false],
    ['secret/data/x', 'secret/data/x', true],
    ['secret/data/x', 'secret/data/x/', true],
    ['secret/data/x', 'secret/data/xy', false],
    ['secret/data/x*', 'secret/data/xy', true],
  ])('EGP path %s matches %s: %s', (egpPath, path, expected) => {
    expect(egpPathMatches(egpPath, path)).toBe(expected);
  });

  it('reads both override headers', () => {
    expect(overrideRequested({ 'x-service-policy-override': 'true' })).toBe(true);
    expect(overrideRequested({ 'x-vault-policy-override': 'TRUE' })).toBe(true);
    expect(overrideRequested({ 'x-vault-policy-override': 'false' })).toBe(false);
    expect(overrideRequested({})).toBe(false);
  });
});
