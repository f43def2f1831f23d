import { domainErrorText as textOf } from '../test-support/domain-error-text';
import {
  decideTokenProtection,
  operationTokenStatusBody,
  startOperationToken,
  submitOperationShare,
  xorDecodeToken,
  xorEncodeToken,
} from './operation-token.decider';

const texts = { operation: 'root generation' };

describe('operation token decider', () => {
  it('encodes token XOR otp as raw base64 and decodes it back', () => {
    const token = 'hvs.abcdefghijklmnopqrstuvwxyz012345';
    const otp = 'ZYXWVUTSRQPONMLKJIHGFEDCBA9876543210'.slice(0, token.length);
    const encoded = xorEncodeToken(token, otp);
    expect(encoded).not.toContain('=');
    expect(xorDecodeToken(encoded, otp)).toBe(token);
    expect(xorDecodeToken(`${encoded}=`, otp)).toBe(token);
    expect(textOf(() => xorDecodeToken(encoded, 'short'))).toMatch(
      /^length of byte slices is not equivalent/,
    );
    expect(textOf(() => xorDecodeToken('', otp))).toBe('missing encoded_token');
    expect(textOf(() => xorDecodeToken(encoded, ''))).toBe('missing otp');
  });

  it('chooses the protection like Vault', () => {
    expect(decideTokenProtection({ otp: '', pgp_key: '' }, 4, () => 'abcd')).toEqual({
      kind: 'otp',
      otp: 'abcd',
      generated: true,
    });
    expect(decideTokenProtection({ otp: '', pgp_key: 'k' }, 4, () => 'x')).toEqual({ kind: 'pgp', key: 'k' });
    expect(textOf(() => decideTokenProtection({ otp: 'abc', pgp_key: '' }, 4, () => 'x'))).toBe(
      'OTP string is wrong length',
    );
    expect(textOf(() => decideTokenProtection({ otp: 'abcd', pgp_key: 'k' }, 4, () => 'x'))).toContain(
      'only one of',
    );
  });

  it('runs the attempt: one at a time, nonce, duplicates, threshold', () => {
    const a = startOperationToken(undefined, { kind: 'otp', otp: 'o', generated: true }, 'n1', texts);
    expect(textOf(() => startOperationToken(a, { kind: 'otp', otp: 'o', generated: true }, 'n', texts))).toBe(
      'root generation already in progress',
    );
    expect(textOf(() => submitOperationShare(undefined, Buffer.alloc(32), 'n1', 2, texts))).toBe(
      'no root generation in progress',
    );
    expect(textOf(() => submitOperationShare(a, Buffer.alloc(32), 'x', 2, texts))).toBe(
      'incorrect nonce supplied; nonce for this root generation operation is "n1"',
    );
    const one = submitOperationShare(a, Buffer.alloc(32, 1), 'n1', 2, texts);
    expect(one.kind).toBe('pending');
    expect(operationTokenStatusBody({ attempt: one.attempt, required: 2, otpLength: 36 })).toMatchObject({
      started: true,
      progress: 1,
      complete: false,
      encoded_token: '',
    });
    expect(textOf(() => submitOperationShare(one.attempt, Buffer.alloc(32, 1), 'n1', 2, texts))).toContain(
      'already been provided',
    );
    expect(submitOperationShare(one.attempt, Buffer.alloc(32, 2), 'n1', 2, texts).kind).toBe('combine');
  });
});
