import {
  historyContracts as hc,
  identityContracts as ic,
  identityGroupContracts as g,
  sysContracts as c,
  tokenContracts,
  userpassContracts,
  type MountInfo,
} from '@coffer/contracts';
import { startCoreSysHarness, type DevCoreSysHarness } from '../test-support/dev-harness';

const PATHS = ['secret/a', 'secret/locked'];
/** what capabilities-accessor's answer means for a read */
const canRead = (caps: readonly string[] | undefined): boolean =>
  (caps ?? []).includes('read') || (caps ?? []).includes('root');

interface Instant {
  at: string;
  /** accessor -> live capabilities-accessor answer per path, null once the token is gone */
  live: Record<string, Record<string, string[]> | null>;
  /** accessor -> live lookup-accessor data, null when it failed */
  lookups: Record<string, unknown>;
  /** id -> live identity/entity/id and identity/group/id reads, null when they failed (404) */
  identity: Record<string, unknown>;
}

/**
 * Who could read X at T, against real Postgres + NATS: a scripted year on a fake clock (policies
 * edited, tokens created and revoked, a userpass entity moved in and out of a group), the live
 * capabilities of every token recorded at each step; explain and access must then answer, for
 * each instant, exactly what sys/capabilities-accessor said then.
 */
describe('history: who could read X at T (NATS + Postgres)', () => {
  let h: DevCoreSysHarness;
  let sys: MountInfo;
  let tokenMount: MountInfo;
  const accessors: string[] = [];
  const instants: Instant[] = [];
  let groupId = '';
  let entityId = '';
  /** every entity and group of the script, read live at each instant */
  const identityIds: { kind: 'entity' | 'group'; id: string }[] = [];

  const policy = (name: string, text: string) =>
    h.call(c.policyWrite, {
      mount: sys,
      operation: 'update',
      path: `policies/acl/${name}`,
      params: { name },
      body: { policy: text },
    });
  const capabilities = async (accessor: string) => {
    try {
      const res = await h.call(c.capabilitiesAccessor, {
        mount: sys,
        path: 'capabilities-accessor',
        body: { accessor, paths: PATHS },
      });
      const data = res.data as Record<string, string[]>;
      return Object.fromEntries(PATHS.map((p) => [p, data[p] ?? []]));
    } catch {
      return null;
    }
  };
  const record = async () => {
    const live: Instant['live'] = {};
    const lookups: Instant['lookups'] = {};
    for (const a of accessors) {
      live[a] = await capabilities(a);
      lookups[a] = await h
        .call(tokenContracts.lookupAccessor, {
          mount: tokenMount,
          path: 'lookup-accessor',
          body: { accessor: a },
        })
        .then((res) => res.data)
        .catch(() => null);
    }
    const identity: Instant['identity'] = {};
    const idm = h.mount('identity/');
    for (const { kind, id } of identityIds) {
      const contract = kind === 'entity' ? ic.entityByIdRead : g.groupByIdRead;
      identity[`${kind}/id/${id}`] = await h
        .call(contract, { mount: idm, operation: 'read', path: `${kind}/id/${id}`, params: { id } })
        .then((res) => res.data ?? null)
        .catch(() => null);
    }
    instants.push({ at: h.clock.now.toISOString(), live, lookups, identity });
  };
  const explain = async (accessor: string, path: string, at: string) =>
    (
      await h.call(hc.explain, {
        mount: sys,
        path: 'history/explain',
        body: { accessor, path, operation: 'read', at },
      })
    ).data as {
      found: boolean;
      usable: boolean;
      allowed: boolean;
      capabilities: string[];
      granted_by: string[];
      denied_by: string[];
      group_ids: string[];
    };
  const access = async (path: string, at: string) =>
    (await h.call(hc.access, { mount: sys, path: 'history/access', body: { path, operation: 'read', at } }))
      .data as {
      accessors: string[];
      entities: string[];
      groups: string[];
      policies: string[];
      denying_policies: string[];
    };

  beforeAll(async () => {
    h = await startCoreSysHarness('history-access');
    sys = h.mount('sys/');
    tokenMount = h.mount('auth/token/');
    const idm = h.mount('identity/');
    // the year starts after the dev bootstrap's events (recorded at the harness's start)
    const start = h.clock.now.getTime();
    // the dev root token is one of the readers all year
    accessors.push((await h.callerFor(h.rootToken)).accessor as string);
    const day = (d: number) => {
      h.clock.now = new Date(start + d * 86_400_000);
    };
    const token = async (policies: string[]) => {
      const res = await h.call(tokenContracts.create, {
        mount: tokenMount,
        path: 'create',
        body: { policies },
      });
      accessors.push(res.auth?.accessor as string);
      return res.auth?.accessor as string;
    };

    // token TTLs are the default 32 days: tokens also expire along the way
    day(1);
    await policy('reader', 'path "secret/*" { capabilities = ["read", "list"] }');
    await policy('locker', 'path "secret/locked" { capabilities = ["deny"] }');
    const t1 = await token(['reader']);
    await record();

    day(20);
    await h.call(tokenContracts.revokeAccessor, {
      mount: tokenMount,
      path: 'revoke-accessor',
      body: { accessor: t1 },
    });
    await token(['reader', 'locker']);
    await record();

    day(40);
    const up = await h.enableAuth('userpass', 'userpass');
    await h.call(userpassContracts.userWrite, {
      mount: up,
      operation: 'create',
      path: 'users/bob',
      params: { username: 'bob' },
      body: { password: 'pw-bob-123', policies: 'default' },
    });
    const login = await h.call(
      userpassContracts.login,
      { mount: up, path: 'login/bob', params: { username: 'bob' }, body: { password: 'pw-bob-123' } },
      { requestId: 'r', namespace: '', clientAddress: '127.0.0.1', policies: [], root: false, sudo: false },
    );
    accessors.push(login.auth?.accessor as string);
    entityId = login.auth?.entity_id as string;
    identityIds.push({ kind: 'entity', id: entityId });
    await record();

    day(50);
    const group = await h.call(g.groupWrite, {
      mount: idm,
      path: 'group',
      body: { name: 'readers', policies: ['reader'], member_entity_ids: [entityId] },
    });
    groupId = (group.data as { id: string }).id;
    identityIds.push({ kind: 'group', id: groupId });
    await record();

    day(55);
    // an outer group holding the first (inherited membership), the entity's own metadata edited
    const outer = await h.call(g.groupWrite, {
      mount: idm,
      path: 'group',
      body: { name: 'outer', policies: ['locker'], member_group_ids: [groupId] },
    });
    const outerId = (outer.data as { id: string }).id;
    identityIds.push({ kind: 'group', id: outerId });
    await h.call(ic.entityByIdWrite, {
      mount: idm,
      path: `entity/id/${entityId}`,
      params: { id: entityId },
      body: { metadata: { team: 'blue' }, policies: ['default'] },
    });
    await record();

    day(60);
    await policy('reader', 'path "secret/b" { capabilities = ["read"] }');
    await record();

    day(65);
    await policy('reader', 'path "secret/*" { capabilities = ["read"] }');
    await h.call(g.groupWrite, {
      mount: idm,
      path: `group/id/${groupId}`,
      params: { id: groupId },
      body: { member_entity_ids: [] },
    });
    await record();

    day(200);
    await policy('locker', 'path "secret/locked" { capabilities = ["read"] }');
    await h.call(ic.entityByIdWrite, {
      mount: idm,
      path: `entity/id/${entityId}`,
      params: { id: entityId },
      body: { metadata: { team: 'red' }, disabled: true },
    });
    await h.call(g.groupByIdDelete, {
      mount: idm,
      operation: 'delete',
      path: `group/id/${outerId}`,
      params: { id: outerId },
    });
    await record();

    day(300);
    await token(['locker']);
    await record();
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  }, 30_000);

  it('explains every token at every instant exactly as the live capabilities said then', async () => {
    expect(instants).toHaveLength(9);
    for (const instant of instants) {
      for (const accessor of accessors) {
        const live = instant.live[accessor];
        for (const path of PATHS) {
          const past = await explain(accessor, path, instant.at);
          const where = { at: instant.at, accessor, path };
          if (live === null || live === undefined) {
            expect({ ...where, usable: past.found && past.usable }).toEqual({ ...where, usable: false });
          } else {
            expect({ ...where, caps: past.capabilities }).toEqual({ ...where, caps: live[path] });
            expect(past.allowed).toBe(canRead(live[path]));
          }
        }
      }
    }
  }, 60_000);

  it('names the granting and denying policies and the group a grant came through', async () => {
    const [, second, , fourth] = instants as [Instant, Instant, Instant, Instant];
    const locked = await explain(accessors[2] as string, 'secret/locked', second.at);
    expect(locked).toMatchObject({ allowed: false, capabilities: ['deny'], denied_by: ['locker'] });
    const bob = await explain(accessors[3] as string, 'secret/a', fourth.at);
    expect(bob).toMatchObject({ allowed: true, granted_by: ['reader'], group_ids: [groupId] });
  });

  it('lists who could read a path at each instant', async () => {
    for (const instant of instants) {
      const expected = accessors.filter((a) => canRead(instant.live[a]?.['secret/a'])).sort();
      const who = await access('secret/a', instant.at);
      expect({ at: instant.at, accessors: who.accessors }).toEqual({ at: instant.at, accessors: expected });
    }
    const fourth = instants[3] as Instant;
    expect(await access('secret/a', fourth.at)).toMatchObject({
      entities: [entityId],
      groups: [groupId],
      policies: ['reader', 'root'],
    });
    expect((await access('secret/locked', fourth.at)).denying_policies).toEqual(['locker']);
  }, 60_000);

  it('answers token metadata at every instant as lookup-accessor did then', async () => {
    for (const instant of instants) {
      for (const accessor of accessors) {
        const path = `auth/token/lookup-accessor/${accessor}`;
        const req = {
          mount: sys,
          operation: 'read' as const,
          path: `history/state/${path}`,
          params: { path },
          query: { at: instant.at },
        };
        // undefined: the token was created after this instant
        const live = instant.lookups[accessor] ?? null;
        const where = { at: instant.at, accessor, live: live !== null };
        const past =
          live === null
            ? (await h.fail(hc.state, req)).code
            : await h
                .call(hc.state, req)
                .then((res) => (res.data as { state: unknown }).state)
                .catch((e: unknown) => String(e));
        expect({ ...where, past }).toEqual({ ...where, past: live ?? 'not_found' });
      }
    }
  }, 60_000);

  it('answers entities and groups (memberships included) at every instant as the live reads did then', async () => {
    let compared = 0;
    for (const instant of instants) {
      for (const { kind, id } of identityIds) {
        const path = `identity/${kind}/id/${id}`;
        const req = {
          mount: sys,
          operation: 'read' as const,
          path: `history/state/${path}`,
          params: { path },
          query: { at: instant.at },
        };
        const live = instant.identity[`${kind}/id/${id}`] ?? null;
        const where = { at: instant.at, path };
        const past =
          live === null
            ? (await h.fail(hc.state, req)).code
            : await h.call(hc.state, req).then((res) => (res.data as { state: unknown }).state);
        expect({ ...where, past }).toEqual({ ...where, past: live ?? 'not_found' });
        if (live !== null) compared += 1;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(12);
  }, 60_000);

  it('keeps a namespace to its own tokens', async () => {
    const last = (instants[instants.length - 1] as Instant).at;
    const inNs = { ...(await h.callerFor(h.rootToken)), namespace: 'ns1/' };
    const who = await h.call(
      hc.access,
      { mount: sys, path: 'history/access', body: { path: 'secret/a', operation: 'read', at: last } },
      inNs,
    );
    expect((who.data as { accessors: string[] }).accessors).toEqual([]);
    const one = await h.call(
      hc.explain,
      { mount: sys, path: 'history/explain', body: { accessor: accessors[0], path: 'secret/a', at: last } },
      inNs,
    );
    expect(one.data).toMatchObject({ found: false, allowed: false });
  });

  it('refuses questions without a path, accessor or known operation', async () => {
    const bad = (body: Record<string, unknown>) =>
      h.fail(hc.explain, { mount: sys, path: 'history/explain', body });
    expect(await bad({ path: 'secret/a' })).toMatchObject({ message: 'missing accessor' });
    expect(await bad({ accessor: 'x' })).toMatchObject({ message: 'missing path' });
    expect(await bad({ accessor: 'x', path: 'a', operation: 'fly' })).toMatchObject({
      message: 'unknown operation "fly"',
    });
  });
});
