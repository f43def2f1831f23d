import { startDevServer, uniq, type DevServer } from '../support';
import { HvacDriver } from '../support/clients';

jest.setTimeout(60_000);

/**
 * hvac (Debian's python3-hvac), unchanged, driving rekey with verification, root token
 * generation and the legacy policy listing against the dev server.
 */
describe('dev: hvac rekey, generate-root and sys/policy', () => {
  let dev: DevServer;
  let hvac: HvacDriver;

  beforeAll(async () => {
    dev = await startDevServer();
    hvac = HvacDriver.start(dev.baseUrl, dev.rootToken);
  }, 120_000);
  afterAll(async () => {
    await hvac?.stop();
    await dev?.stop();
  });

  it('starts, cancels, and completes a rekey with verification', async () => {
    expect(await hvac.call('sys.read_rekey_progress')).toMatchObject({ started: false, required: 1 });
    await hvac.call('sys.start_rekey', { kwargs: { secret_shares: 1, secret_threshold: 1 } });
    expect((await hvac.call('sys.cancel_rekey')).status_code).toBe(204);

    const started = await hvac.call('sys.start_rekey', {
      kwargs: { secret_shares: 3, secret_threshold: 2, require_verification: true },
    });
    expect(started).toMatchObject({ started: true, t: 2, n: 3, verification_required: true });
    const done = await hvac.call('sys.rekey', { args: [dev.unsealKey], kwargs: { nonce: started.nonce } });
    expect(done).toMatchObject({ complete: true, verification_required: true });
    const shares = done.keys as string[];
    const progress = await hvac.call('sys.read_rekey_verify_progress');
    expect(progress).toMatchObject({ started: true, nonce: done.verification_nonce, progress: 0 });
    await hvac.call('sys.rekey_verify', { args: [shares[0], done.verification_nonce] });
    const verified = await hvac.call('sys.rekey_verify', { args: [shares[2], done.verification_nonce] });
    expect(verified).toEqual({ nonce: done.verification_nonce, complete: true });
    expect(await hvac.call('sys.read_rekey_progress')).toMatchObject({ started: false, required: 2 });

    const attempt = await hvac.call('sys.start_root_token_generation');
    expect(attempt).toMatchObject({ started: true, required: 2 });
    await hvac.call('sys.generate_root', { args: [shares[1], attempt.nonce] });
    const generated = await hvac.call('sys.generate_root', { args: [shares[0], attempt.nonce] });
    expect(generated.complete).toBe(true);
    const decoded = await dev.client.put('sys/decode-token', {
      encoded_token: generated.encoded_token,
      otp: attempt.otp,
    });
    const self = await dev.client.withToken(decoded.body.data.token).get('auth/token/lookup-self');
    expect(self.body.data.policies).toEqual(['root']);
  });

  it('lists policies through the legacy sys/policy', async () => {
    const name = uniq('hvac-pol');
    await dev.client.put(`sys/policies/acl/${name}`, { policy: 'path "x/*" { capabilities = ["read"] }' });
    const listed = await hvac.call('sys.list_policies');
    expect(listed.policies).toContain(name);
    expect(listed.data.keys).toContain(name);
    expect((await hvac.call('sys.read_policy', { args: [name] })).rules).toBe(
      'path "x/*" { capabilities = ["read"] }',
    );
  });
});
