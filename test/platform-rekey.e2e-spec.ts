import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from '@coffer/testing';
import { decrypt, generateKey, readKey, readMessage, readPrivateKey } from 'openpgp';
import { startCluster, startDevServer, START_TIMEOUT_MS, type ApiClient, type Cluster } from './support';

jest.setTimeout(120_000);

interface PgpPair {
  /** base64 of the binary public key, as sys/rekey/init and generate-root take it */
  publicB64: string;
  armoredPrivate: string;
  fingerprint: string;
}

async function pgpPair(name: string): Promise<PgpPair> {
  const { publicKey, privateKey } = await generateKey({
    type: 'ecc',
    curve: 'curve25519Legacy',
    userIDs: [{ name, email: `${name}@example.com` }],
    format: 'armored',
  });
  const pub = await readKey({ armoredKey: publicKey });
  return {
    publicB64: Buffer.from(pub.write()).toString('base64'),
    armoredPrivate: privateKey,
    fingerprint: pub.getFingerprint(),
  };
}

async function openpgpDecrypt(pair: PgpPair, encrypted: Buffer): Promise<string> {
  const message = await readMessage({ binaryMessage: encrypted });
  const key = await readPrivateKey({ armoredKey: pair.armoredPrivate });
  const { data } = await decrypt({ message, decryptionKeys: key, format: 'binary' });
  return Buffer.from(data as Uint8Array).toString('utf8');
}

/** Debian's gpg, in a throw-away GNUPGHOME holding only `pair`'s private key. */
function gpgDecrypt(pair: PgpPair, encrypted: Buffer): string {
  const home = mkdtempSync(path.join(tmpdir(), 'coffer-gpg-'));
  try {
    const env = { ...process.env, GNUPGHOME: home };
    writeFileSync(path.join(home, 'key.asc'), pair.armoredPrivate);
    execFileSync('gpg', ['--batch', '--import', path.join(home, 'key.asc')], { env, stdio: 'pipe' });
    return execFileSync('gpg', ['--batch', '--quiet', '--decrypt'], { env, input: encrypted, stdio: 'pipe' })
      .toString('utf8')
      .trim();
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

const errorsOf = (res: { body: { errors?: string[] } }): string => (res.body.errors ?? []).join('\n');

/**
 * sys/rekey/* and sys/generate-root/* + sys/decode-token over HTTP, in dev mode and cluster
 * mode: the whole state machine, PGP shares read back by openpgp and gpg, the key backup,
 * verification, cancel, bad input, and old shares refused after a rekey (across a core-sys
 * restart in cluster mode).
 */
describe.each(['dev', 'cluster'] as const)('%s: rekey and generate-root', (kind) => {
  let root: ApiClient;
  let anon: ApiClient;
  let shares: string[];
  let cluster: Cluster | undefined;
  let stop: () => Promise<unknown>;

  beforeAll(async () => {
    if (kind === 'dev') {
      const dev = await startDevServer();
      root = dev.client;
      anon = root.withToken(undefined);
      shares = [dev.unsealKey];
      stop = () => dev.stop();
    } else {
      cluster = await startCluster({ label: 'rekey' });
      root = cluster.client;
      anon = root.withToken(undefined);
      shares = cluster.unsealKeys;
      stop = () => cluster!.stop();
    }
  }, START_TIMEOUT_MS);
  afterAll(() => stop?.());

  const status = async () => (await anon.get('sys/rekey/init')).body;

  describe('start, read, cancel', () => {
    it('reads no attempt, starts one (200 with the status), refuses a second, cancels (204)', async () => {
      expect(await status()).toMatchObject({ started: false, nonce: '', progress: 0, required: 1 });
      const started = await anon.put('sys/rekey/init', { secret_shares: 3, secret_threshold: 2 });
      expect(started.status).toBe(200);
      expect(started.body).toMatchObject({ started: true, t: 2, n: 3, progress: 0, required: 1 });
      expect(started.body.nonce).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      const again = await anon.put('sys/rekey/init', { secret_shares: 3, secret_threshold: 2 });
      expect(again.status).toBe(400);
      expect(errorsOf(again)).toBe('rekey already in progress');
      expect((await anon.delete('sys/rekey/init')).status).toBe(204);
      expect((await status()).started).toBe(false);
    });

    it('refuses bad parameters and stores nothing', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ secret_shares: 2, secret_threshold: 3 }, 'provided threshold greater than the total shares'],
        [
          { secret_shares: 0, secret_threshold: 0 },
          'invalid rekey seal configuration: shares must be at least one',
        ],
        [{ secret_shares: 3, secret_threshold: 1 }, 'threshold must be greater than one for multiple shares'],
        [{ secret_shares: 'x', secret_threshold: 1 }, 'expected integers'],
        [{ secret_shares: 1, secret_threshold: 1, backup: true }, 'cannot request a backup'],
        [
          { secret_shares: 2, secret_threshold: 2, pgp_keys: ['AAAA'] },
          'incorrect number of PGP keys for rekey',
        ],
        [
          { secret_shares: 1, secret_threshold: 1, pgp_keys: ['bm90IGEga2V5'] },
          'error decoding given PGP key 1',
        ],
      ];
      for (const [body, text] of cases) {
        const res = await anon.put('sys/rekey/init', body);
        expect(res.status).toBe(400);
        expect(errorsOf(res)).toContain(text);
      }
      expect((await status()).started).toBe(false);
    });

    it('checks the share and the nonce of an update', async () => {
      const { nonce } = (await anon.put('sys/rekey/init', { secret_shares: 1, secret_threshold: 1 })).body;
      const noKey = await anon.put('sys/rekey/update', { nonce });
      expect(errorsOf(noKey)).toBe("'key' must be specified in request body as JSON");
      const badKey = await anon.put('sys/rekey/update', { key: '%%%', nonce });
      expect(errorsOf(badKey)).toBe("'key' must be a valid hex or base64 string");
      const short = await anon.put('sys/rekey/update', { key: 'AAAA', nonce });
      expect(errorsOf(short)).toBe('key is shorter than minimum 16 bytes');
      const wrongNonce = await anon.put('sys/rekey/update', { key: shares[0], nonce: 'nope' });
      expect(wrongNonce.status).toBe(400);
      expect(errorsOf(wrongNonce)).toBe(
        `incorrect nonce supplied; nonce for this rekey operation is "${nonce}"`,
      );
      const wrongShare = await anon.put('sys/rekey/update', {
        key: Buffer.alloc(32, 7).toString('base64'),
        nonce,
      });
      expect(wrongShare.status).toBe(400);
      expect(errorsOf(wrongShare)).toContain('root key verification failed');
      expect((await anon.delete('sys/rekey/init')).status).toBe(204);
      // the current share still works
      const res = await anon.put('sys/generate-root/attempt', {});
      expect(res.status).toBe(200);
      expect((await anon.delete('sys/generate-root/attempt')).status).toBe(204);
    });

    it('survives 1,000 rounds of rekey and generate-root start / wrong nonce / cancel with the current keys intact', async () => {
      for (let i = 0; i < 1000; i++) {
        const { nonce } = (await anon.put('sys/rekey/init', { secret_shares: 1, secret_threshold: 1 })).body;
        expect((await anon.put('sys/rekey/update', { key: shares[0], nonce: `${nonce}x` })).status).toBe(400);
        expect((await anon.delete('sys/rekey/init')).status).toBe(204);
        const root = (await anon.put('sys/generate-root/attempt', {})).body;
        expect(
          (await anon.put('sys/generate-root/update', { key: shares[0], nonce: `${root.nonce}x` })).status,
        ).toBe(400);
        expect((await anon.delete('sys/generate-root/attempt')).status).toBe(204);
      }
      expect((await status()).started).toBe(false);
      expect((await anon.get('sys/generate-root/attempt')).body.started).toBe(false);
    });

    it('answers 405 to methods the rekey routes do not have', async () => {
      expect((await anon.get('sys/rekey/update')).status).toBe(405);
      expect((await anon.delete('sys/generate-root/update')).status).toBe(405);
    });
  });

  describe('a rekey with PGP keys, backup and verification', () => {
    let pairs: PgpPair[];
    let newShares: string[];

    beforeAll(async () => {
      pairs = [await pgpPair('alice'), await pgpPair('bob'), await pgpPair('carol')];
    });

    it('returns PGP-encrypted shares that openpgp and gpg decrypt; the root key rotates after verification', async () => {
      const init = await anon.put('sys/rekey/init', {
        secret_shares: 3,
        secret_threshold: 2,
        pgp_keys: pairs.map((p) => p.publicB64),
        backup: true,
        require_verification: true,
      });
      expect(init.status).toBe(200);
      expect(init.body).toMatchObject({
        started: true,
        backup: true,
        verification_required: true,
        pgp_fingerprints: pairs.map((p) => p.fingerprint),
      });
      const done = await anon.put('sys/rekey/update', { key: shares[0], nonce: init.body.nonce });
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({
        complete: true,
        nonce: init.body.nonce,
        backup: true,
        verification_required: true,
        pgp_fingerprints: pairs.map((p) => p.fingerprint),
      });
      const encrypted = (done.body.keys_base64 as string[]).map((k) => Buffer.from(k, 'base64'));
      expect((done.body.keys as string[]).map((k) => Buffer.from(k, 'hex'))).toEqual(encrypted);
      newShares = [
        await openpgpDecrypt(pairs[0]!, encrypted[0]!),
        await openpgpDecrypt(pairs[1]!, encrypted[1]!),
        gpgDecrypt(pairs[2]!, encrypted[2]!),
      ];
      for (const s of newShares) expect(s).toMatch(/^[0-9a-f]{66}$/);
      expect(gpgDecrypt(pairs[0]!, encrypted[0]!)).toBe(newShares[0]);

      const vnonce = done.body.verification_nonce as string;
      expect(vnonce).toMatch(/^[0-9a-f-]{36}$/);
      const blocked = await anon.put('sys/rekey/update', { key: shares[0], nonce: init.body.nonce });
      expect(errorsOf(blocked)).toBe(
        `rekey operation already finished; verification must be performed; nonce for the verification operation is "${vnonce}"`,
      );
      const vstatus = await anon.get('sys/rekey/verify');
      expect(vstatus.body).toMatchObject({ started: true, nonce: vnonce, t: 2, n: 3, progress: 0 });

      // restart the verification: new nonce, progress 0
      const first = await anon.put('sys/rekey/verify', { key: newShares[0], nonce: vnonce });
      expect(first.body).toMatchObject({ nonce: vnonce, progress: 1 });
      const dup = await anon.put('sys/rekey/verify', { key: newShares[0], nonce: vnonce });
      expect(errorsOf(dup)).toBe('given key has already been provided during this verify operation');
      const restarted = await anon.delete('sys/rekey/verify');
      expect(restarted.status).toBe(200);
      expect(restarted.body.progress).toBe(0);
      expect(restarted.body.nonce).not.toBe(vnonce);
      const nonce2 = restarted.body.nonce as string;
      const stale = await anon.put('sys/rekey/verify', { key: newShares[0], nonce: vnonce });
      expect(errorsOf(stale)).toBe(
        `incorrect nonce supplied; nonce for this verify operation is "${nonce2}"`,
      );

      // the old share still unseals until verification completes
      expect((await status()).required).toBe(1);
      await anon.put('sys/rekey/verify', { key: newShares[0], nonce: nonce2 });
      const verified = await anon.put('sys/rekey/verify', { key: newShares[2], nonce: nonce2 });
      expect(verified.status).toBe(200);
      expect(verified.body).toEqual({ nonce: nonce2, complete: true });
      expect(await status()).toMatchObject({ started: false, required: 2 });
    });

    it('keeps the encrypted shares in the backup (sudo), until deleted', async () => {
      expect((await anon.get('sys/rekey/backup')).status).toBe(403);
      const backup = await root.get('sys/rekey/backup');
      expect(backup.status).toBe(200);
      expect(Object.keys(backup.body.data.keys).sort()).toEqual(pairs.map((p) => p.fingerprint).sort());
      expect(backup.body.keys).toEqual(backup.body.data.keys);
      const hex = backup.body.data.keys[pairs[1]!.fingerprint][0] as string;
      expect(await openpgpDecrypt(pairs[1]!, Buffer.from(hex, 'hex'))).toBe(newShares[1]);
      expect((await root.delete('sys/rekey/backup')).status).toBe(204);
      expect((await root.get('sys/rekey/backup')).status).toBe(404);
    });

    it('refuses a share given twice in one rekey round', async () => {
      const { nonce } = (await anon.put('sys/rekey/init', { secret_shares: 1, secret_threshold: 1 })).body;
      expect((await anon.put('sys/rekey/update', { key: newShares[0], nonce })).body.progress).toBe(1);
      const dup = await anon.put('sys/rekey/update', { key: newShares[0], nonce });
      expect(dup.status).toBe(400);
      expect(errorsOf(dup)).toBe('given key has already been provided during this generation operation');
      expect((await anon.delete('sys/rekey/init')).status).toBe(204);
    });

    it('generates a root token with OTP from the new shares, decoded by sys/decode-token', async () => {
      const started = await anon.put('sys/generate-root/attempt', {});
      expect(started.status).toBe(200);
      const { otp, nonce, otp_length: otpLength } = started.body;
      expect(otp).toHaveLength(otpLength);
      expect(started.body).toMatchObject({ started: true, progress: 0, required: 2, complete: false });
      expect((await anon.get('sys/generate-root/attempt')).body.otp).toBeUndefined();
      const again = await anon.put('sys/generate-root/attempt', {});
      expect(errorsOf(again)).toBe('root generation already in progress');
      const wrong = await anon.put('sys/generate-root/update', { key: newShares[0], nonce: 'x' });
      expect(errorsOf(wrong)).toBe(
        `incorrect nonce supplied; nonce for this root generation operation is "${nonce}"`,
      );
      expect((await anon.put('sys/generate-root/update', { key: newShares[0], nonce })).body.progress).toBe(
        1,
      );
      const done = await anon.put('sys/generate-root/update', {
        key: Buffer.from(newShares[1]!, 'hex').toString('base64'),
        nonce,
      });
      expect(done.body).toMatchObject({ complete: true, progress: 2, required: 2 });
      expect(done.body.encoded_token).not.toMatch(/=$/);
      const decoded = await root.put('sys/decode-token', { encoded_token: done.body.encoded_token, otp });
      expect(decoded.status).toBe(200);
      const token = decoded.body.data.token as string;
      const self = await anon.withToken(token).get('auth/token/lookup-self');
      expect(self.status).toBe(200);
      expect(self.body.data.policies).toEqual(['root']);
      expect((await anon.get('sys/generate-root/attempt')).body.started).toBe(false);
      const bad = await root.put('sys/decode-token', {
        encoded_token: done.body.encoded_token,
        otp: 'short',
      });
      expect(bad.status).toBe(400);
    });

    it('generates a PGP-encrypted root token', async () => {
      const pair = pairs[0]!;
      const started = await anon.put('sys/generate-root/attempt', { pgp_key: pair.publicB64 });
      expect(started.body).toMatchObject({ started: true, pgp_fingerprint: pair.fingerprint });
      expect(started.body.otp).toBeUndefined();
      const { nonce } = started.body;
      await anon.put('sys/generate-root/update', { key: newShares[2], nonce });
      const done = await anon.put('sys/generate-root/update', { key: newShares[1], nonce });
      expect(done.body.complete).toBe(true);
      const token = gpgDecrypt(pair, Buffer.from(done.body.encoded_token, 'base64'));
      expect((await anon.withToken(token).get('auth/token/lookup-self')).body.data.policies).toEqual([
        'root',
      ]);
    });

    it(
      'seals; the old share no longer unseals, the new ones do' +
        (kind === 'cluster' ? ' on a restarted core-sys' : ''),
      async () => {
        expect((await root.put('sys/seal', {})).status).toBe(204);
        if (cluster) {
          await cluster.addReplica('core-sys');
          cluster.processes.coreSys.kill('SIGKILL');
          await waitFor(async () => (await anon.get('sys/seal-status')).status === 200, {
            timeoutMs: 60_000,
          });
        }
        const status0 = await anon.get('sys/seal-status');
        expect(status0.body).toMatchObject({ sealed: true, t: 2, n: 3, progress: 0 });
        // the old share with a new one: refused, still sealed
        expect((await anon.put('sys/unseal', { key: shares[0] })).body.progress).toBe(1);
        expect((await anon.put('sys/unseal', { key: newShares[0] })).status).toBe(400);
        expect((await anon.get('sys/seal-status')).body.sealed).toBe(true);
        // the old share alone (as the threshold of 1 it was): not a share of the new key
        await anon.put('sys/unseal', { reset: true });
        await anon.put('sys/unseal', { key: newShares[0] });
        const s2 = await anon.put('sys/unseal', { key: newShares[1] });
        expect(s2.body.sealed).toBe(false);
        await waitFor(async () => (await root.get('secret/config')).status === 200, { timeoutMs: 60_000 });
      },
    );
  });
});

describe('dev server with a data directory: a rekey survives a restart', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'coffer-dev-rekey-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'starts sealed after the restart: the old key is refused, the new shares unseal',
    async () => {
      const env = { COFFER_DEV_DATA_DIR: dir, COFFER_DEV_ROOT_TOKEN_ID: 'dev-rekey-root' };
      const first = await startDevServer(env);
      let newShares: string[];
      try {
        await first.client.put('secret/data/kept', { data: { v: 'across' } });
        const anon = first.client.withToken(undefined);
        const { nonce } = (await anon.put('sys/rekey/init', { secret_shares: 3, secret_threshold: 2 })).body;
        const done = await anon.put('sys/rekey/update', { key: first.unsealKey, nonce });
        newShares = done.body.keys_base64 as string[];
      } finally {
        expect((await first.stop()).code).toBe(0);
      }

      const second = await startDevServer(env);
      try {
        const anon = second.client.withToken(undefined);
        expect((await anon.get('sys/seal-status')).body).toMatchObject({ sealed: true, t: 2, n: 3 });
        await anon.put('sys/unseal', { key: first.unsealKey });
        expect((await anon.put('sys/unseal', { key: newShares[0] })).status).toBe(400);
        await anon.put('sys/unseal', { key: newShares[2] });
        expect((await anon.put('sys/unseal', { key: newShares[1] })).body.sealed).toBe(false);
        await waitFor(async () => (await second.client.get('secret/data/kept')).status === 200, {
          timeoutMs: 30_000,
        });
        expect((await second.client.get('secret/data/kept')).body.data.data).toEqual({ v: 'across' });
      } finally {
        await second.stop();
      }
    },
    START_TIMEOUT_MS,
  );
});
