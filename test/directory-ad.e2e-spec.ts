import { START_TIMEOUT_MS, TARGETS, type ApiClient, type Target } from './support';
import { startAdServer, type AdServer } from './support/ad-server';
import { startDirectoryTarget } from './support/directory-target';

jest.setTimeout(120_000);
const LABEL = 'directory-ad';

/** The directory engine's ad schema over LDAPS against a server enforcing unicodePwd (test CA). */
describe.each(TARGETS)('%s: directory engine, ad schema', (kind) => {
  let ad: AdServer;
  let target: Target;
  let root: ApiClient;
  let mount: string;
  const config = () => ({
    url: ad.url,
    binddn: ad.binddn,
    bindpass: ad.bindpass,
    userdn: ad.userdn,
    certificate: ad.ca,
    request_timeout: 5,
  });

  beforeAll(async () => {
    ad = await startAdServer(['app@corp.test', 'pool1@corp.test', 'pool2@corp.test']);
    ({ target, mount } = await startDirectoryTarget(kind, LABEL));
    root = target.root;
    expect((await root.post(`${mount}/config`, config())).status).toBe(204);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await target?.stop();
    await ad?.stop();
  });

  it('defaults to the ad schema (userPrincipalName) and keeps the CA', async () => {
    const data = (await root.get(`${mount}/config`)).body.data;
    expect(data).toMatchObject({ schema: 'ad', userattr: 'userPrincipalName', certificate: ad.ca });
    expect(data).not.toHaveProperty('bindpass');
  });

  it('sets passwords as quoted UTF-16LE unicodePwd over LDAPS and reads pwdLastSet', async () => {
    expect((await root.post(`${mount}/roles/app`, { service_account_name: 'app@corp.test' })).status).toBe(
      204,
    );
    const creds = await root.get(`${mount}/creds/app`);
    expect(creds.status).toBe(200);
    expect(creds.body.data.username).toBe('app');
    expect(ad.hasPassword('app@corp.test', creds.body.data.current_password)).toBe(true);
    const role = (await root.get(`${mount}/roles/app`)).body.data;
    expect(typeof role.password_last_set).toBe('string');
    expect(Math.abs(Date.parse(role.password_last_set) - Date.parse(role.last_vault_rotation))).toBeLessThan(
      5_000,
    );
    // within the tolerance: the directory's last-set is Coffer's own, no re-rotation
    expect((await root.get(`${mount}/creds/app`)).body.data.current_password).toBe(
      creds.body.data.current_password,
    );
  });

  it('lends library accounts whose passwords the directory holds', async () => {
    expect(
      (
        await root.post(`${mount}/library/pool`, {
          service_account_names: ['pool1@corp.test', 'pool2@corp.test'],
        })
      ).status,
    ).toBe(204);
    const out = await root.post(`${mount}/library/pool/check-out`, {});
    expect(out.status).toBe(200);
    expect(ad.hasPassword(out.body.data.service_account_name, out.body.data.password)).toBe(true);
    const back = await root.post(`${mount}/library/pool/check-in`, {});
    expect(back.body.data.check_ins).toEqual([out.body.data.service_account_name]);
    expect(ad.hasPassword(out.body.data.service_account_name, out.body.data.password)).toBe(false);
  });

  it('refuses an unknown CA, and unicodePwd without TLS, with a 502 and nothing changed', async () => {
    const before = (await root.get(`${mount}/creds/app`)).body.data.current_password;
    const writes = ad.passwordWrites;
    const other = `${mount}-x`;
    await root.post(`sys/mounts/${other}`, { type: 'directory' });
    await root.post(`${other}/config`, { ...config(), certificate: '' });
    const untrusted = await root.post(`${other}/roles/app`, { service_account_name: 'app@corp.test' });
    expect(untrusted.status).toBe(502);
    expect(untrusted.body.errors[0]).toContain('could not reach the directory');
    await root.post(`${other}/config`, { ...config(), url: ad.plainUrl });
    expect((await root.post(`${other}/roles/app`, { service_account_name: 'app@corp.test' })).status).toBe(
      204,
    );
    const plain = await root.post(`${other}/rotate-role/app`);
    expect(plain.status).toBe(502);
    expect(plain.body.errors[0]).toContain('the directory refused the request');
    expect(ad.passwordWrites).toBe(writes);
    expect(ad.hasPassword('app@corp.test', before)).toBe(true);
  });

  it('rotate-root over LDAPS', async () => {
    expect((await root.post(`${mount}/rotate-root`)).status).toBe(204);
    expect(ad.hasPassword('coffer-admin@corp.test', ad.bindpass)).toBe(false);
    expect((await root.post(`${mount}/rotate-role/app`)).status).toBe(204);
  });
});
