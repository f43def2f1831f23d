import { sql } from 'kysely';
import { replayable, type Projection, type Replayable } from '@coffer/event-store';
import { CoreSysDb, type CoreSysTrx } from '../core-sys.table';
import { APPROLE_ROLE_LOG, APPROLE_SALT_LOG, APPROLE_SECRET_ID_LOG } from '../approle/approle.events';
import { ApproleRoleProjection, ApproleSecretIdProjection } from '../approle/approle.projection';
import { GROUP_LOG, ROOT_GRAPH } from '../identity/group.events';
import { GroupProjection } from '../identity/group.projection';
import { IDENTITY_LOG } from '../identity/identity.events';
import { IdentityProjection } from '../identity/identity.projection';
import { LEASE_LOG } from '../leases/lease.events';
import { LeaseProjection } from '../leases/lease.projection';
import { PASSWORD_POLICY_LOG } from '../password-policies/password-policy.events';
import { PasswordPolicyProjection } from '../password-policies/password-policy.projection';
import { TOKEN_ROLE_LOG } from '../token-roles/token-role.events';
import { TokenRoleProjection } from '../token-roles/token-role.projection';
import { inheritedTokenSaltStream, TOKEN_LOG, TOKEN_SALT_LOG } from '../tokens/token.events';
import { TokenProjection } from '../tokens/token.projection';
import { USERPASS_LOG } from '../userpass/userpass.events';
import { UserpassProjection } from '../userpass/userpass.projection';
import { WRAPPING_LOG } from '../wrapping/wrapping.events';
import { ReplicaSealedRepository } from './replica-sealed.repository';

/**
 * The version of `stream` in this cluster's own core-sys log, read in the apply's transaction
 * (dev mode's PGlite has one connection: a read beside the transaction would wait for it forever).
 */
export async function ownStreamVersion(db: CoreSysDb, trx: CoreSysTrx, stream: string): Promise<number> {
  const { rows } = await sql<{ version: number | string | null }>`
    select max(stream_version) as version from ${sql.table(`${db.schema}.event_log`)}
     where stream = ${stream}`.execute(trx);
  return Number(rows[0]?.version ?? 0);
}

/** What a replayed batch changed that a cache must drop (see coreSysReplica's onChanged). */
export type AuthChange = 'token' | 'entity' | 'approle-salt';

export interface AuthReplayDeps {
  db: CoreSysDb;
  identity: IdentityProjection;
  groups: GroupProjection;
  userpass: UserpassProjection;
  approleRoles: ApproleRoleProjection;
  approleSecretIds: ApproleSecretIdProjection;
  tokenRoles: TokenRoleProjection;
  passwordPolicies: PasswordPolicyProjection;
  tokens: TokenProjection;
  leases: LeaseProjection;
  sealed: ReplicaSealedRepository;
}

/**
 * The read model's row version is what this cluster's next append of the stream must expect, so
 * a replicated row carries the version of the stream in this cluster's own log (0 when it never
 * wrote there), not the primary's: a promoted DR secondary (or a performance secondary's local
 * write) then appends the next event of a replicated user, token or role to its own log, and its
 * projection folds it onto the replicated row.
 */
function atOwnVersion(db: CoreSysDb, item: Replayable): Replayable {
  return {
    ...item,
    async run(trx, events, ctx) {
      const first = events[0];
      if (!first) return;
      const own = await ownStreamVersion(db, trx as CoreSysTrx, first.stream);
      await item.run(
        trx,
        events.map((e) => ({ ...e, streamVersion: own })),
        ctx,
      );
    },
  };
}

/** Tokens, their salt, leases and wrapped responses: a performance secondary keeps its own (Vault's rule). */
function drOnly(item: Replayable): Replayable {
  return {
    ...item,
    run: (trx, events, ctx) => (ctx.mode === 'dr' ? item.run(trx, events, ctx) : Promise.resolve()),
  };
}

/** `<prefix><mount uuid>/<rest>` as its two parts (mount uuids hold no '/'). */
function mountAndName(stream: string, prefix: string): { mountUuid: string; name: string } {
  const rest = stream.slice(prefix.length);
  const slash = rest.indexOf('/');
  return { mountUuid: rest.slice(0, slash), name: rest.slice(slash + 1) };
}

/**
 * Whether the data of the auth mount `uuid` is projected here: a DR secondary takes every mount;
 * a performance secondary leaves out the primary's local mounts (`local: true`), which the mount
 * replay kept out of its table, so their users, roles and secret ids stay on the primary.
 */
async function mountReplicated(
  db: CoreSysDb,
  trx: CoreSysTrx,
  uuid: string,
  mode: 'dr' | 'performance',
): Promise<boolean> {
  if (mode === 'dr') return true;
  const found = await db
    .of(trx)
    .selectFrom('mounts')
    .select('uuid')
    .where('uuid', '=', uuid)
    .executeTakeFirst();
  return found !== undefined;
}

/** The primary's AppRole salt of a mount, kept under its stream name (barrier-encrypted here). */
const approleSaltKept = (d: AuthReplayDeps): Projection<typeof APPROLE_SALT_LOG.table, void, string> => ({
  async apply(trx, events, stream) {
    for (const e of events) await d.sealed.save(trx as CoreSysTrx, stream, e.data.salt);
  },
});

/**
 * The primary's token salt likewise, and the salts it inherited from the clusters it was promoted
 * from (`token-salt/inherited/…`, folded into its log with their tokens), each under its stream.
 */
const tokenSaltKept = (d: AuthReplayDeps): Projection<typeof TOKEN_SALT_LOG.table, void, void> => ({
  async apply(trx, events) {
    for (const e of events) await d.sealed.save(trx as CoreSysTrx, e.stream, e.data.salt);
  },
});

/**
 * The primary's pending wrapped responses (DR): core-sys reads a response from its own log's
 * stream, which on this cluster holds none of the primary's, so the replay keeps each pending one
 * (barrier-encrypted here) until the primary releases it; an unwrap here appends the release to
 * this cluster's own log (see WrappingService.pending).
 */
const wrappedKept = (d: AuthReplayDeps): Projection<typeof WRAPPING_LOG.table, void, string> => ({
  async apply(trx, events, stream) {
    for (const e of events) {
      if (e.type === 'ResponseWrapped')
        await d.sealed.save(trx as CoreSysTrx, stream, JSON.stringify(e.data));
      else await d.sealed.delete(trx as CoreSysTrx, stream);
    }
  },
});

/**
 * The primary's identity, auth backends' data, token roles and password policies (both modes),
 * and its tokens, token salt, leases and wrapped responses (DR only), with core-sys's own projections.
 */
export function authReplayables(d: AuthReplayDeps, touched: (kind: AuthChange) => void): Replayable[] {
  const { db } = d;
  // the gateway caches resolved tokens and entities' policies, and core-sys the AppRole salts it
  // has loaded: a batch that changed them says so
  const noting = (kind: AuthChange, item: Replayable): Replayable => ({
    ...item,
    run: (trx, events, ctx) => {
      touched(kind);
      return item.run(trx, events, ctx);
    },
  });
  const rest = (prefix: string) => (_trx: unknown, stream: string) => stream.slice(prefix.length);
  const both: Replayable[] = [
    noting('entity', replayable(IDENTITY_LOG, d.identity, rest('entity/'))),
    noting('entity', replayable(GROUP_LOG, d.groups, rest('group-graph/'))),
    replayable(TOKEN_ROLE_LOG, d.tokenRoles, rest('token-role/')),
    replayable(PASSWORD_POLICY_LOG, d.passwordPolicies, rest('policy/password/')),
    replayable(USERPASS_LOG, d.userpass, async (trx, stream, _events, ctx) => {
      const { mountUuid, name } = mountAndName(stream, 'userpass-user/');
      if (!(await mountReplicated(db, trx as CoreSysTrx, mountUuid, ctx.mode))) return null;
      return { mountUuid, username: name };
    }),
    replayable(APPROLE_ROLE_LOG, d.approleRoles, async (trx, stream, _events, ctx) => {
      const { mountUuid, name } = mountAndName(stream, 'approle-role/');
      if (!(await mountReplicated(db, trx as CoreSysTrx, mountUuid, ctx.mode))) return null;
      return { mountUuid, roleName: name };
    }),
    replayable(APPROLE_SECRET_ID_LOG, d.approleSecretIds, async (trx, stream, _events, ctx) => {
      const { mountUuid, name } = mountAndName(stream, 'approle-secret-id/');
      if (!(await mountReplicated(db, trx as CoreSysTrx, mountUuid, ctx.mode))) return null;
      return { mountUuid, hmac: name };
    }),
  ].map((item) => atOwnVersion(db, item));
  // a secret-id login here before the primary's salt had streamed made a local one, loaded since:
  // the primary's replaces it (the replicated secret ids are HMACed with it)
  const approleSalt = noting(
    'approle-salt',
    replayable(APPROLE_SALT_LOG, approleSaltKept(d), async (trx, stream, _events, ctx) =>
      (await mountReplicated(db, trx as CoreSysTrx, stream.slice('approle-salt/'.length), ctx.mode))
        ? stream
        : null,
    ),
  );
  const dr: Replayable[] = [
    noting('token', atOwnVersion(db, replayable(TOKEN_LOG, d.tokens, rest('token/')))),
    atOwnVersion(db, replayable(LEASE_LOG, d.leases, rest('lease/'))),
    replayable(TOKEN_SALT_LOG, tokenSaltKept(d), () => undefined),
    replayable(WRAPPING_LOG, wrappedKept(d), (_trx, stream) => stream),
  ].map(drOnly);
  return [...both, approleSalt, ...dr];
}

/** The logs authReplayables projects (core-sys.replay keeps the others unprojected). */
export const AUTH_REPLAYED_LOGS: readonly unknown[] = [
  IDENTITY_LOG,
  GROUP_LOG,
  TOKEN_ROLE_LOG,
  PASSWORD_POLICY_LOG,
  USERPASS_LOG,
  APPROLE_ROLE_LOG,
  APPROLE_SECRET_ID_LOG,
  APPROLE_SALT_LOG,
  TOKEN_LOG,
  LEASE_LOG,
  TOKEN_SALT_LOG,
  WRAPPING_LOG,
];

/**
 * Deletes the rows of `table` whose stream (`streamOf`, SQL over the row's columns) this cluster
 * never wrote to its own log: those came from the primary. Its own rows (a performance
 * secondary's tokens, a DR secondary's root token, ...) stay.
 */
async function deleteReplicatedRows(db: CoreSysDb, trx: CoreSysTrx, table: string, streamOf: string) {
  await sql`
    delete from ${sql.table(`${db.schema}.${table}`)} as r
     where not exists (select 1 from ${sql.table(`${db.schema}.event_log`)} as e
                        where e.stream = ${sql.raw(streamOf)})`.execute(trx);
}

/**
 * The read-model tables of the replayed auth data, each with its rows' stream as SQL over the row
 * (alias `r`) and whether the row keeps the stream's version (what the next append expects).
 */
export const REPLICATED_ROWS: ReadonlyArray<{ table: string; streamOf: string; versioned: boolean }> = [
  { table: 'tokens', streamOf: `'token/' || r.accessor`, versioned: true },
  { table: 'leases', streamOf: `'lease/' || r.lease_id`, versioned: true },
  {
    table: 'userpass_users',
    streamOf: `'userpass-user/' || r.mount_uuid || '/' || r.username`,
    versioned: true,
  },
  {
    table: 'approle_roles',
    streamOf: `'approle-role/' || r.mount_uuid || '/' || r.role_name`,
    versioned: true,
  },
  {
    table: 'approle_secret_ids',
    streamOf: `'approle-secret-id/' || r.mount_uuid || '/' || r.hmac`,
    versioned: true,
  },
  { table: 'token_roles', streamOf: `'token-role/' || r.name`, versioned: true },
  { table: 'password_policies', streamOf: `'policy/password/' || r.name`, versioned: false },
  { table: 'identity_entities', streamOf: `'entity/' || r.id`, versioned: true },
  {
    table: 'identity_groups',
    streamOf: `'group-graph/' || case when r.namespace = '' then '${ROOT_GRAPH}' else r.namespace end`,
    versioned: false,
  },
  { table: 'identity_group_graphs', streamOf: `'group-graph/' || r.namespace`, versioned: true },
];

/**
 * secondary/enable and re-sync: the replicated identity, auth backends' data, token roles,
 * password policies, tokens, leases, salts and wrapped responses are cleared; what this cluster wrote itself stays.
 * A namespace's group graph this cluster also wrote to keeps its groups (one stream holds both).
 */
export async function wipeReplicatedAuth(db: CoreSysDb, trx: CoreSysTrx): Promise<void> {
  for (const { table, streamOf } of REPLICATED_ROWS) await deleteReplicatedRows(db, trx, table, streamOf);
  const t = (name: string) => sql.table(`${db.schema}.${name}`);
  // what hangs off a deleted entity or group
  await sql`delete from ${t('identity_aliases')} a
             where not exists (select 1 from ${t('identity_entities')} e where e.id = a.canonical_id)`.execute(
    trx,
  );
  await sql`delete from ${t('identity_merged_entities')} m
             where not exists (select 1 from ${t('identity_entities')} e where e.id = m.entity_id)`.execute(
    trx,
  );
  await sql`delete from ${t('identity_group_aliases')} a
             where not exists (select 1 from ${t('identity_groups')} g where g.id = a.group_id)`.execute(trx);
  await sql`delete from ${t('identity_group_entity_members')} m
             where not exists (select 1 from ${t('identity_groups')} g where g.id = m.group_id)`.execute(trx);
  await sql`delete from ${t('identity_group_edges')} x
             where not exists (select 1 from ${t('identity_groups')} g where g.id = x.parent_id)
                or not exists (select 1 from ${t('identity_groups')} g where g.id = x.child_id)`.execute(trx);
  // a former primary's salt this cluster folded into its own log at a promotion stays with its tokens
  await sql`delete from ${t('replica_sealed')} r
             where not (r.stream like ${`${inheritedTokenSaltStream('')}%`}
                        and exists (select 1 from ${t('event_log')} e where e.stream = r.stream))`.execute(
    trx,
  );
}
