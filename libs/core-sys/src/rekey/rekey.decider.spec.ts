import { sysRekeyInitBody } from '@coffer/contracts';
import { domainErrorText as textOf } from '../test-support/domain-error-text';
import {
  decideRekeyConfig,
  rekeyStatusBody,
  restartVerification,
  startRekey,
  submitRekeyShare,
  submitVerifyShare,
  verifyStatusBody,
  type RekeyAttempt,
  type RekeyConfig,
} from './rekey.decider';

const config: RekeyConfig = {
  shares: 3,
  threshold: 2,
  pgpKeys: [],
  pgpFingerprints: [],
  backup: false,
  requireVerification: true,
};
const share = (n: number) => Buffer.alloc(33, n);

describe('rekey decider', () => {
  it.each([
    [{ secret_shares: 2, secret_threshold: 3 }, 'provided threshold greater than the total shares'],
    [{ secret_shares: 1, secret_threshold: 1, backup: true }, 'cannot request a backup of the new keys'],
    [{ secret_shares: 2, secret_threshold: 2, pgp_keys: ['a'] }, 'incorrect number of PGP keys for rekey'],
    [
      { secret_shares: 300, secret_threshold: 2 },
      'invalid rekey seal configuration: shares must be less than 256',
    ],
  ])('refuses %j', (body, text) => {
    expect(textOf(() => decideRekeyConfig(sysRekeyInitBody.parse(body)))).toContain(text);
  });

  it('accepts weak fields', () => {
    const parsed = decideRekeyConfig(sysRekeyInitBody.parse({ secret_shares: '3', secret_threshold: '2' }));
    expect(parsed).toMatchObject({ shares: 3, threshold: 2, backup: false, requireVerification: false });
  });

  it('one attempt at a time', () => {
    const a = startRekey(undefined, config, 'n1');
    expect(textOf(() => startRekey(a, config, 'n2'))).toBe('rekey already in progress');
  });

  it('collects current shares under the nonce, refuses duplicates, combines at the threshold', () => {
    expect(textOf(() => submitRekeyShare(undefined, share(1), 'n', 2))).toBe('no barrier rekey in progress');
    const a = startRekey(undefined, config, 'n1');
    expect(textOf(() => submitRekeyShare(a, share(1), 'bad', 2))).toBe(
      'incorrect nonce supplied; nonce for this rekey operation is "n1"',
    );
    const one = submitRekeyShare(a, share(1), 'n1', 2);
    expect(one.kind).toBe('pending');
    expect(rekeyStatusBody(one.attempt, 2)).toMatchObject({
      started: true,
      progress: 1,
      required: 2,
      t: 2,
      n: 3,
    });
    expect(textOf(() => submitRekeyShare(one.attempt, share(1), 'n1', 2))).toBe(
      'given key has already been provided during this generation operation',
    );
    const two = submitRekeyShare(one.attempt, share(2), 'n1', 2);
    expect(two.kind).toBe('combine');
    if (two.kind === 'combine') {
      expect(two.shares).toHaveLength(2);
      expect(two.attempt.progress).toHaveLength(0);
    }
  });

  it('verification: blocks updates, own nonce, restart with a new nonce', () => {
    const a: RekeyAttempt = {
      ...startRekey(undefined, config, 'n1'),
      verification: { nonce: 'v1', rootKey: Buffer.alloc(32), progress: [] },
    };
    expect(textOf(() => submitRekeyShare(a, share(1), 'n1', 1))).toContain(
      'verification must be performed; nonce for the verification operation is "v1"',
    );
    expect(textOf(() => submitVerifyShare(a, share(1), 'x'))).toBe(
      'incorrect nonce supplied; nonce for this verify operation is "v1"',
    );
    const one = submitVerifyShare(a, share(1), 'v1');
    expect(verifyStatusBody(one.attempt)).toEqual({ started: true, nonce: 'v1', t: 2, n: 3, progress: 1 });
    const restarted = restartVerification(one.attempt, 'v2');
    expect(verifyStatusBody(restarted)).toMatchObject({ nonce: 'v2', progress: 0 });
    expect(submitVerifyShare(one.attempt, share(2), 'v1').kind).toBe('combine');
    expect(textOf(() => submitVerifyShare(startRekey(undefined, config, 'n'), share(1), 'n'))).toBe(
      'no rekey verification in progress',
    );
  });

  it('reads an idle status', () => {
    expect(rekeyStatusBody(undefined, 1)).toEqual({
      started: false,
      nonce: '',
      t: 0,
      n: 0,
      progress: 0,
      required: 1,
      pgp_fingerprints: null,
      backup: false,
      verification_required: false,
    });
  });
});
