import { randomUUID } from 'node:crypto';
import type { INestMicroservice } from '@nestjs/common';
import { Barrier, createKeyring } from '@coffer/barrier';
import {
  coreLeasesHeld,
  encodeContext,
  engineHistoryState,
  engineLeaseContracts,
  type Contract,
  type MountInfo,
} from '@coffer/contracts';
import { directory } from '@coffer/contracts/directory';
import { createPgDb, migrateSchema, type DbHandle } from '@coffer/event-store';
import {
  createTestDatabase,
  natsUrl,
  startSlapd,
  uniqueSubjectPrefix,
  type Slapd,
  type TestDatabase,
  historyInstant,
} from '@coffer/testing';
import { connectNatsTransport, createServiceApp, type Transport } from '@coffer/transport';
import { Attribute, Change, Client } from 'ldapts';
import { DIRECTORY_SCHEMA } from './directory.di';
import { DirectoryModule } from './directory.module';
import { directoryMigrations } from './migrations';
import { RecordStore } from './records/record.store';
import { RotationSweep } from './rotation/rotation-sweep.service';

jest.setTimeout(60_000);

interface Replica {
  app: INestMicroservice;
  transport: Transport;
  client: Transport;
  db: DbHandle;
}

/** The directory service on real Postgres, NATS and slapd: two replicas of one queue group on one database. */
describe('directory service (Postgres, NATS, slapd, two replicas)', () => {
  let database: TestDatabase;
  let slapd: Slapd;
  const replicas: Replica[] = [];
  const barrier = new Barrier();
  barrier.load(createKeyring());
  let clockOffsetMs = 0;
  const mount: MountInfo = {
    path: 'directory/',
    uuid: randomUUID(),
    accessor: 'directory_test',
    type: 'directory',
    namespace: '',
    options: {},
    config: { default_lease_ttl: 0, max_lease_ttl: 0 },
  };
  const headers = (tokenRef = 'root-ref') =>
    encodeContext({
      requestId: randomUUID(),
      namespace: '',
      clientAddress: '127.0.0.1',
      tokenRef,
      root: true,
    });
  const call = (i: number, contract: Contract, operation: string, path: string, body = {}, params = {}) =>
    replicas[i % replicas.length]!.client.request(
      contract,
      { operation, mount, path, params, body, query: {}, headers: {} },
      { headers: headers() },
    ) as Promise<{ data: any; secret?: any; status?: number }>;

  beforeAll(async () => {
    slapd = await startSlapd(['svc1', 'svc2', 'lib1', 'lib2', 'lib3', 'hist1', 'hist2', 'hist3']);
    database = await createTestDatabase('directory-int');
    await migrateSchema(database.db, DIRECTORY_SCHEMA, directoryMigrations);
    const prefix = uniqueSubjectPrefix('directory-int');
    for (let i = 0; i < 2; i++) {
      const db = createPgDb(database.url, { max: 5 });
      const transport = await connectNatsTransport({
        servers: natsUrl(),
        subjectPrefix: prefix,
        name: `dir-${i}`,
      });
      const client = await connectNatsTransport({
        servers: natsUrl(),
        subjectPrefix: prefix,
        name: `c-${i}`,
      });
      const runtime = {
        db: db.db,
        schema: DIRECTORY_SCHEMA,
        transport,
        cipher: barrier,
        clock: () => new Date(Date.now() + clockOffsetMs),
      };
      const app = await createServiceApp(DirectoryModule.register(runtime), transport, 'directory', {
        logger: false,
      });
      replicas.push({ app, transport, client, db });
    }
    await call(0, directory.configWrite, 'update', 'config', {
      url: `ldap://127.0.0.1:1,${slapd.url}`, // the first URL refuses: the second is used
      binddn: slapd.binddn,
      bindpass: slapd.bindpass,
      userdn: slapd.userdn,
      schema: 'openldap',
    });
  });
  afterAll(async () => {
    for (const r of replicas) {
      await r.app.close().catch(() => undefined);
      await r.client.close();
      await r.transport.close();
      await r.db.close();
    }
    await database?.drop();
    await slapd?.stop();
  });

  it('lends each account once to 10 concurrent check-outs across replicas', async () => {
    await call(
      0,
      directory.setWrite,
      'update',
      'library/team',
      { service_account_names: ['lib1', 'lib2', 'lib3'] },
      { name: 'team' },
    );
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        call(i, directory.checkOut, 'update', 'library/team/check-out', {}, { name: 'team' }),
      ),
    );
    const ok = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(ok.map((r) => r.data.service_account_name).sort()).toEqual(['lib1', 'lib2', 'lib3']);
    for (const r of results)
      if (r.status === 'rejected')
        expect(r.reason).toMatchObject({
          code: 'invalid_request',
          message: 'No service accounts available for check-out.',
        });
    for (const r of ok)
      expect(await slapd.binds(slapd.dnOf(r.data.service_account_name), r.data.password)).toBe(true);

    // revocation is idempotent: twice, on both replicas, checks in once
    const revoke = engineLeaseContracts('directory').revoke;
    const first = ok[0]!;
    const req = {
      lease_id: 'directory/library/team/check-out/x',
      mount,
      internal: first.secret.internal,
      issue_time: new Date().toISOString(),
    };
    await replicas[0]!.client.request(revoke, req, { headers: headers() });
    await replicas[1]!.client.request(revoke, req, { headers: headers() });
    expect(await slapd.binds(slapd.dnOf(first.data.service_account_name), first.data.password)).toBe(false);
    const status = await call(1, directory.status, 'read', 'library/team/status', {}, { name: 'team' });
    expect(status.data[first.data.service_account_name]).toEqual({ available: true });
  });

  it('rotates one role once when replicas race', async () => {
    await call(
      0,
      directory.roleWrite,
      'update',
      'roles/app',
      { service_account_name: 'svc1' },
      { name: 'app' },
    );
    const creds = await Promise.all(
      Array.from({ length: 6 }, (_, i) => call(i, directory.creds, 'read', 'creds/app', {}, { name: 'app' })),
    );
    const passwords = new Set(creds.map((c) => c.data.current_password));
    expect(passwords.size).toBe(1);
    expect(await slapd.binds(slapd.dnOf('svc1'), [...passwords][0])).toBe(true);
  });

  it('rotates a due role once when the sweeps of both replicas run together', async () => {
    await call(
      0,
      directory.roleWrite,
      'update',
      'roles/due',
      { service_account_name: 'svc2', ttl: 60 },
      { name: 'due' },
    );
    const before = (await call(0, directory.creds, 'read', 'creds/due', {}, { name: 'due' })).data
      .current_password;
    clockOffsetMs = 120_000;
    try {
      await Promise.all(replicas.map((r) => r.app.get(RotationSweep).sweep()));
    } finally {
      clockOffsetMs = 0;
    }
    const after = (await call(1, directory.creds, 'read', 'creds/due', {}, { name: 'due' })).data;
    // one rotation: the password before the sweeps is the last one (two would have lost it)
    expect(after.last_password).toBe(before);
    expect(await slapd.binds(slapd.dnOf('svc2'), after.current_password)).toBe(true);
    expect(await slapd.binds(slapd.dnOf('svc2'), before)).toBe(false);
  });

  it('leaves no unknown password after a crash between the directory write and its confirmation', async () => {
    const store = replicas[0]!.app.get(RecordStore);
    const role = await store.get(mount.uuid, 'role', 'app');
    // what a replica killed with -9 leaves: the intent in the log, the password in the directory, no confirmation
    const password = '?@09AZcrashCrashCrash0123456789';
    await store.append(mount.uuid, 'role', 'app', role!.version, [
      { type: 'DirectoryPasswordRotationIntended', data: { password, at: new Date().toISOString() } },
    ]);
    const admin = new Client({ url: slapd.url });
    await admin.bind(slapd.binddn, slapd.bindpass);
    await admin.modify(
      slapd.dnOf('svc1'),
      new Change({
        operation: 'replace',
        modification: new Attribute({ type: 'userPassword', values: [password] }),
      }),
    );
    await admin.unbind();
    // the restarted service's recovery pass, once the intent is past its grace
    clockOffsetMs = 60_000;
    try {
      await replicas[1]!.app.get(RotationSweep).sweep();
    } finally {
      clockOffsetMs = 0;
    }
    const creds = await call(1, directory.creds, 'read', 'creds/app', {}, { name: 'app' });
    expect(creds.data.current_password).toBe(password);
    expect(await slapd.binds(slapd.dnOf('svc1'), password)).toBe(true);
  });

  it('finishes an intent whose directory write never happened by writing it', async () => {
    const store = replicas[0]!.app.get(RecordStore);
    const role = await store.get(mount.uuid, 'role', 'app');
    const password = '?@09AZneverWrittenBefore0123456789';
    await store.append(mount.uuid, 'role', 'app', role!.version, [
      {
        type: 'DirectoryPasswordRotationIntended',
        data: { password, at: new Date(Date.now() - 60_000).toISOString() },
      },
    ]);
    // a creds read does not wait for the sweep: it finishes the stale intent itself
    const creds = await call(0, directory.creds, 'read', 'creds/app', {}, { name: 'app' });
    expect(creds.data.current_password).toBe(password);
    expect(await slapd.binds(slapd.dnOf('svc1'), password)).toBe(true);
  });

  it('checks in an account whose check-out lease never reached core-sys, once past the grace', async () => {
    // core-sys's lease lookup, played here: it holds the leases of `held`
    const held = new Set<string>();
    const asked: string[][] = [];
    const sub = replicas[0]!.client.serve(coreLeasesHeld, 'core-sys', (req) => {
      asked.push(req.values);
      return Promise.resolve({ held: req.values.filter((v) => held.has(v)) });
    });
    const sweep = async (i: number, offsetMs: number) => {
      clockOffsetMs = offsetMs;
      try {
        await replicas[i]!.app.get(RotationSweep).sweep();
      } finally {
        clockOffsetMs = 0;
      }
    };
    try {
      const everyone = { service_account_names: ['lib1', 'lib2', 'lib3'] };
      await call(0, directory.manageCheckIn, 'update', 'library/manage/team/check-in', everyone, {
        name: 'team',
      });
      const checkOut = (i: number) =>
        call(i, directory.checkOut, 'update', 'library/team/check-out', {}, { name: 'team' });
      const kept = await checkOut(0);
      const lost = await checkOut(1);
      held.add(kept.secret.internal.checkout_id);
      await sweep(0, 0); // within the grace: core-sys is not asked
      expect(asked).toEqual([]);

      await sweep(1, 31_000);
      expect(asked.flat()).toEqual(
        expect.arrayContaining([kept.secret.internal.checkout_id, lost.secret.internal.checkout_id]),
      );
      const status = await call(0, directory.status, 'read', 'library/team/status', {}, { name: 'team' });
      expect(status.data[lost.data.service_account_name]).toEqual({ available: true });
      expect(status.data[kept.data.service_account_name]).toMatchObject({ available: false });
      // checked in means rotated: the lost borrower's password no longer binds, the kept one's does
      const binds = (r: typeof kept) => slapd.binds(slapd.dnOf(r.data.service_account_name), r.data.password);
      expect(await binds(lost)).toBe(false);
      expect(await binds(kept)).toBe(true);
      // the kept check-out is its lease's from now on: never asked about again
      const before = asked.length;
      await sweep(0, 120_000);
      expect(asked).toHaveLength(before);
    } finally {
      sub.unsubscribe();
    }
  });

  it('answers directory.history.state for config, roles and library sets, and their LISTs, as the live reads did', async () => {
    const other: MountInfo = { ...mount, path: 'directory-history/', uuid: randomUUID() };
    const on = (contract: Contract, operation: string, path: string, body = {}, params = {}) =>
      replicas[0]!.client.request(
        contract,
        { operation, mount: other, path, params, body, query: {}, headers: {} },
        { headers: headers() },
      ) as Promise<{ data: any }>;
    const read = (contract: Contract, operation: string, path: string, params = {}) =>
      on(contract, operation, path, {}, params).then(
        (res) => res.data,
        () => null,
      );
    const live = async () => {
      const role = await read(directory.roleRead, 'read', 'roles/r', { name: 'r' });
      // password_last_set is the directory's at the read, not in the log: history leaves it out
      if (role) delete role.password_last_set;
      return {
        config: await read(directory.configRead, 'read', 'config'),
        role,
        roles: await read(directory.roleList, 'list', 'roles'),
        set: await read(directory.setRead, 'read', 'library/s', { name: 's' }),
        library: await read(directory.setList, 'list', 'library'),
      };
    };
    const instant = async () => {
      const at = await historyInstant();
      return { at, ...(await live()) };
    };
    const past = (at: string, path: string) =>
      replicas[1]!.client.request(engineHistoryState('directory'), {
        mount_uuid: other.uuid,
        mount_type: 'directory',
        mount_options: {},
        path,
        query: {},
        at,
        values: true,
      });
    const config = {
      url: slapd.url,
      binddn: slapd.binddn,
      bindpass: slapd.bindpass,
      userdn: slapd.userdn,
      schema: 'openldap',
    };
    const role = (name: string, account: string) =>
      on(directory.roleWrite, 'update', `roles/${name}`, { service_account_name: account }, { name });
    const set = (body: object) => on(directory.setWrite, 'update', 'library/s', body, { name: 's' });

    const steps = [await instant()];
    await on(directory.configWrite, 'update', 'config', config);
    await role('r', 'hist1');
    await set({ service_account_names: ['hist2'], ttl: 600 });
    steps.push(await instant());
    await on(directory.configWrite, 'update', 'config', { ...config, length: 20 });
    await on(directory.rotateRole, 'update', 'rotate-role/r', {}, { name: 'r' });
    const creds = await on(directory.creds, 'read', 'creds/r', {}, { name: 'r' });
    await role('Q', 'hist3');
    await set({ service_account_names: ['hist2'], ttl: 1200 });
    steps.push(await instant());
    await on(directory.roleDelete, 'delete', 'roles/r', {}, { name: 'r' });
    await on(directory.setDelete, 'delete', 'library/s', {}, { name: 's' });
    steps.push(await instant());
    await on(directory.roleDelete, 'delete', 'roles/q', {}, { name: 'q' });
    await on(directory.configDelete, 'delete', 'config');
    steps.push(await instant());

    expect(steps[1]?.role).toMatchObject({ service_account_name: 'hist1' });
    expect(steps[2]?.role).toHaveProperty('last_vault_rotation');
    expect(steps[2]?.roles).toEqual({ keys: ['q', 'r'] });
    expect(steps[2]?.config).not.toEqual(steps[1]?.config);
    expect(steps[2]?.set).not.toEqual(steps[1]?.set);
    const secrets = [slapd.bindpass, creds.data.current_password as string];
    for (const then of steps) {
      const answers: Record<string, unknown> = {};
      for (const [key, path] of [
        ['config', 'config'],
        ['role', 'roles/R'],
        ['roles', 'roles'],
        ['set', 'library/s'],
        ['library', 'library'],
      ] as const) {
        const answer = await past(then.at, path);
        for (const secret of secrets) expect(JSON.stringify(answer)).not.toContain(secret);
        answers[key] = answer.found ? answer.state : null;
        if (key === 'role' && answer.found) expect(answer.warnings.join()).toContain('password_last_set');
      }
      const { at, ...expected } = then;
      expect({ at, ...answers }).toEqual({ at, ...expected });
    }
    for (const path of ['creds/r', 'library/s/status', 'rotate-root'])
      await expect(past(new Date().toISOString(), path)).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
