import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import {
  auditContracts,
  auditHmac,
  coreAuditConfig,
  invalidation,
  type Invalidation,
} from '@coffer/contracts';
import { waitFor } from '@coffer/testing';
import { CoreSysHarness } from '../test-support/core-sys-harness';

describe('audit devices (NATS + Postgres)', () => {
  let h: CoreSysHarness;
  let invalidations: Invalidation[];

  beforeAll(async () => {
    h = await CoreSysHarness.start('audit', 2);
    const init = await h.initialise(1, 1);
    await h.unseal(init.keys);
    invalidations = await h.record(invalidation);
  }, 30_000);
  afterAll(async () => {
    await h?.close();
  }, 30_000);

  const a = auditContracts;
  const list = async () => (await h.sys(a.list, { operation: 'read', path: 'audit' })).data ?? {};
  const enable = (path: string, body: Record<string, unknown>) =>
    h.sys(a.enable, { operation: 'update', path: `audit/${path}`, params: { path }, body });
  const disable = (path: string) =>
    h.sys(a.disable, { operation: 'delete', path: `audit/${path}`, params: { path } });
  const hash = (path: string, input: string) =>
    h.sys(a.hash, { operation: 'update', path: `audit-hash/${path}`, params: { path }, body: { input } });

  it('enables a file device, lists it without its salt, and broadcasts the change', async () => {
    expect(await list()).toEqual({});
    const before = invalidations.length;
    expect(
      await enable('file', { type: 'file', options: { file_path: 'stdout', log_raw: false } }),
    ).toMatchObject({ data: null });
    await waitFor(() => invalidations.slice(before).some((i) => i.kind === 'audit'));
    expect(await list()).toEqual({
      'file/': {
        type: 'file',
        description: '',
        options: { file_path: 'stdout', log_raw: 'false' },
        local: false,
        path: 'file/',
      },
    });
  });

  it('hands the gateway each device with its own salt, and audit-hash uses it', async () => {
    await enable('sock', { type: 'socket', options: { address: '127.0.0.1:9090', socket_type: 'tcp' } });
    const config = await h.client.request(coreAuditConfig, {});
    expect(config.devices.map((d) => d.path).sort()).toEqual(['file/', 'sock/']);
    const [file, sock] = ['file/', 'sock/'].map((p) => config.devices.find((d) => d.path === p));
    expect(file?.salt).toEqual(expect.any(String));
    expect(file?.salt).not.toBe(sock?.salt);
    const res = await hash('file', 'canary');
    expect(res.data).toEqual({ hash: auditHmac(file?.salt ?? '', 'canary') });
    expect(res.data?.hash).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
  });

  it('keeps salts out of the read model', async () => {
    const rows = await sql<Record<string, unknown>>`select * from core_sys.audit_devices`.execute(
      h.replica(0).db.db,
    );
    const config = await h.client.request(coreAuditConfig, {});
    const text = JSON.stringify(rows.rows);
    for (const device of config.devices) expect(text).not.toContain(device.salt);
  });

  it('refuses bad input as Vault does and changes nothing', async () => {
    expect(await h.failure(enable('x', { type: 'syslog2' }))).toMatchObject({
      code: 'invalid_request',
      message: 'unknown backend type: "syslog2"',
    });
    expect(await h.failure(enable('x', { type: 'file' }))).toMatchObject({
      message: 'file_path is required',
    });
    expect(await h.failure(enable('x', { type: 'socket' }))).toMatchObject({
      message: 'address is required',
    });
    expect(
      await h.failure(enable('x', { type: 'file', options: { file_path: 'stdout', format: 'xml' } })),
    ).toMatchObject({
      message: 'unknown format type "xml"',
    });
    expect(
      await h.failure(enable('file', { type: 'file', options: { file_path: 'discard' } })),
    ).toMatchObject({
      message: 'path already in use',
    });
    expect(await h.failure(hash('nope', 'x'))).toMatchObject({ message: 'unknown audit backend nope/' });
    expect(Object.keys(await list()).sort()).toEqual(['file/', 'sock/']);
  });

  it("refuses a file device whose path cannot be opened for append, with Vault's sanity-check text", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-check-'));
    // a directory is not a file one can append to
    expect(await h.failure(enable('dir', { type: 'file', options: { file_path: dir } }))).toEqual(
      expect.objectContaining({
        code: 'invalid_request',
        message: `sanity check failed; unable to open "${dir}" for writing: open ${dir}: is a directory`,
      }),
    );
    // the parent is a file: MkdirAll fails first
    const parentFile = join(dir, 'plain');
    writeFileSync(parentFile, '');
    const below = join(parentFile, 'audit.log');
    expect(await h.failure(enable('below', { type: 'file', options: { file_path: below } }))).toMatchObject({
      message: `sanity check failed; unable to open "${below}" for writing: mkdir ${parentFile}: not a directory`,
    });
    expect(Object.keys(await list()).sort()).toEqual(['file/', 'sock/']);
    // a path whose directory is missing is created, as Vault's MkdirAll does; jsonx is a format
    const nested = join(dir, 'a', 'b', 'audit.log');
    await enable('nested', { type: 'file', options: { file_path: nested, format: 'jsonx' } });
    expect(statSync(nested).mode & 0o777).toBe(0o600);
    await disable('nested');
  });

  it('disables a device (its salt is lost) and disabling an unknown path is a no-op', async () => {
    const old = (await hash('file', 'canary')).data?.hash;
    await disable('file');
    await disable('never-enabled');
    expect(Object.keys(await list())).toEqual(['sock/']);
    await enable('file', { type: 'file', options: { file_path: 'discard' } });
    expect((await hash('file', 'canary')).data?.hash).not.toBe(old);
  });

  it('configures audited request headers (names lower-cased)', async () => {
    const headers = () =>
      h.sys(a.headersList, { operation: 'read', path: 'config/auditing/request-headers' });
    const header = (name: string) => ({
      operation: 'update' as const,
      path: `config/auditing/request-headers/${name}`,
      params: { header: name },
    });
    await h.sys(a.headerWrite, { ...header('X-Request-Id'), body: { hmac: true } });
    await h.sys(a.headerWrite, { ...header('user-agent') });
    expect((await headers()).data).toEqual({
      headers: { 'x-request-id': { hmac: true }, 'user-agent': { hmac: false } },
    });
    expect((await h.sys(a.headerRead, { ...header('x-request-id'), operation: 'read' })).data).toEqual({
      'x-request-id': { hmac: true },
    });
    await h.sys(a.headerDelete, { ...header('user-agent'), operation: 'delete' });
    const config = await h.client.request(coreAuditConfig, {});
    expect(config.headers).toEqual([{ name: 'x-request-id', hmac: true }]);
  });
});
