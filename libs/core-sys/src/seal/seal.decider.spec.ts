import { DomainError, sysContracts } from '@coffer/contracts';
import { parsedBody } from '../test-support/contract-body';
import {
  decideInitConfig,
  decideUnsealCommand,
  sealStatusBody,
  submitShare,
  type UnsealProgress,
} from './seal.decider';

const init = (body: Record<string, unknown>) => decideInitConfig(parsedBody(sysContracts.init, body));
const unseal = (body: Record<string, unknown>) => decideUnsealCommand(parsedBody(sysContracts.unseal, body));
const share = (byte: number, length = 33) => Buffer.alloc(length, byte);
const nonces = () => {
  let n = 0;
  return () => `nonce-${++n}`;
};

function errorOf(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a DomainError');
}

describe('decideInitConfig', () => {
  it('accepts numbers and numeric strings', () => {
    expect(init({ secret_shares: 5, secret_threshold: 3 })).toEqual({
      secretShares: 5,
      secretThreshold: 3,
    });
    expect(init({ secret_shares: '1', secret_threshold: '1' })).toEqual({
      secretShares: 1,
      secretThreshold: 1,
    });
  });

  it.each([
    [{}, 'invalid seal configuration: shares must be at least one'],
    [{ secret_shares: 3 }, 'invalid seal configuration: threshold must be at least one'],
    [
      { secret_shares: 3, secret_threshold: 1 },
      'invalid seal configuration: threshold must be greater than one for multiple shares',
    ],
    [{ secret_shares: 256, secret_threshold: 2 }, 'invalid seal configuration: shares must be less than 256'],
    [
      { secret_shares: 2, secret_threshold: 3 },
      'invalid seal configuration: threshold cannot be larger than shares',
    ],
  ])('refuses %j with Vault text', (body, message) => {
    const e = errorOf(() => init(body));
    expect(e.code).toBe('invalid_request');
    expect(e.message).toBe(message);
  });

  it('refuses PGP keys it cannot honour', () => {
    expect(errorOf(() => init({ secret_shares: 1, secret_threshold: 1, pgp_keys: ['x'] })).code).toBe(
      'invalid_request',
    );
  });
});

describe('decideUnsealCommand', () => {
  it('reset wins over key', () => {
    expect(unseal({ reset: true, key: 'zz' })).toEqual({ kind: 'reset' });
    expect(unseal({ reset: 'true' })).toEqual({ kind: 'reset' });
  });

  it('requires a key unless resetting', () => {
    expect(errorOf(() => unseal({})).message).toBe(
      "'key' must be specified in request body as JSON, or 'reset' set to true",
    );
    expect(errorOf(() => unseal({ reset: false })).message).toContain("'key' must be specified");
  });

  it('decodes hex first, then base64', () => {
    const bytes = share(7);
    const hex = unseal({ key: bytes.toString('hex') });
    const b64 = unseal({ key: bytes.toString('base64') });
    expect(hex).toEqual({ kind: 'share', share: bytes });
    expect(b64).toEqual({ kind: 'share', share: bytes });
  });

  it('refuses undecodable keys', () => {
    expect(errorOf(() => unseal({ key: 'not a key!' })).message).toBe(
      "'key' must be a valid hex or base64 string",
    );
  });
});

describe('submitShare', () => {
  it('accumulates shares until the threshold, under one nonce', () => {
    const next = nonces();
    const first = submitShare(undefined, share(1), 3, next);
    expect(first.kind).toBe('pending');
    const p1 = (first as { progress: UnsealProgress }).progress;
    expect(p1).toEqual({ nonce: 'nonce-1', shares: [share(1)] });
    const second = submitShare(p1, share(2), 3, next);
    const p2 = (second as { progress: UnsealProgress }).progress;
    expect(p2.nonce).toBe('nonce-1');
    expect(p2.shares).toHaveLength(2);
    const third = submitShare(p2, share(3), 3, next);
    expect(third).toEqual({ kind: 'combine', shares: [share(1), share(2), share(3)] });
  });

  it('combines at once with a threshold of one', () => {
    expect(submitShare(undefined, share(9, 32), 1, nonces())).toEqual({
      kind: 'combine',
      shares: [share(9, 32)],
    });
  });

  it('refuses a share given twice in one attempt and keeps the progress', () => {
    const progress: UnsealProgress = { nonce: 'n', shares: [share(1)] };
    const e = errorOf(() => submitShare(progress, share(1), 3, nonces()));
    expect(e.code).toBe('invalid_request');
    expect(e.message).toBe('given key has already been provided during this unseal operation');
    expect(progress.shares).toHaveLength(1);
  });

  it('treats shares of another length as different', () => {
    const step = submitShare({ nonce: 'n', shares: [share(1, 32)] }, share(1, 33), 3, nonces());
    expect(step.kind).toBe('pending');
  });
});

describe('sealStatusBody', () => {
  const base = {
    config: { secretShares: 5, secretThreshold: 3 },
    version: '0.1.0',
    buildDate: '',
    storageType: 'postgresql',
    cluster: { name: 'coffer-cluster-1', id: 'id-1' },
  };

  it('reports progress and nonce while sealed, no cluster identity', () => {
    const body = sealStatusBody({
      ...base,
      initialized: true,
      sealed: true,
      progress: { nonce: 'abc', shares: [share(1), share(2)] },
    });
    expect(body).toEqual({
      type: 'shamir',
      initialized: true,
      sealed: true,
      t: 3,
      n: 5,
      progress: 2,
      nonce: 'abc',
      version: '0.1.0',
      build_date: '',
      migration: false,
      recovery_seal: false,
      storage_type: 'postgresql',
    });
  });

  it('adds the cluster identity once unsealed', () => {
    const body = sealStatusBody({ ...base, initialized: true, sealed: false, progress: undefined });
    expect(body).toMatchObject({
      sealed: false,
      progress: 0,
      nonce: '',
      cluster_name: 'coffer-cluster-1',
      cluster_id: 'id-1',
    });
  });

  it('reports t = n = 0 before init', () => {
    const body = sealStatusBody({
      ...base,
      config: undefined,
      initialized: false,
      sealed: true,
      progress: undefined,
    });
    expect(body).toMatchObject({ initialized: false, sealed: true, t: 0, n: 0 });
  });
});
