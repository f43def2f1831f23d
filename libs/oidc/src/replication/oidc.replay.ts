import {
  engineReplicaProvider,
  replayable,
  type EngineReplicaSpec,
  type ServiceRuntime,
} from '@coffer/event-store';
import type { ReplicationMode } from '@coffer/contracts/replication';
import { OIDC_CONFIG_LOG, type ResourceRef } from '../config/oidc-config.events';
import { OidcConfigProjection } from '../config/oidc-config.projection';
import { OidcDefaults } from '../config/oidc-defaults.service';
import { OIDC_CODE_LOG, type CodeRef } from '../grants/grant.events';
import { OidcCodeProjection } from '../grants/grant.projection';
import { codeAad } from '../grants/grant.repository';
import type { CodeGrant } from '../grants/grant.state';
import { OIDC_EVENT_STORE } from '../oidc.di';
import { OidcDb, type OidcTrx, type ResourceKind } from '../shared/oidc.table';
import { SealedJson } from '../shared/sealed-json';

const CONFIG_PREFIX = 'oidc-config/';
const CODE_PREFIX = 'oidc-code/';
const RESOURCE_KINDS: readonly ResourceKind[] = ['key', 'provider', 'scope', 'client', 'assignment'];

/**
 * `oidc-config/<kind>/<namespace, encoded, or ->/<name>` back to its resource (see
 * OIDC_CONFIG_LOG's stream). These streams name no mount (the identity/ mount is builtin, never
 * local nor filtered), so the primary's stream filter passes them all.
 */
export function resourceOfStream(stream: string): ResourceRef {
  const [kind, namespace, ...name] = stream.slice(CONFIG_PREFIX.length).split('/');
  if (
    !stream.startsWith(CONFIG_PREFIX) ||
    !RESOURCE_KINDS.includes(kind as ResourceKind) ||
    namespace === undefined ||
    name.length === 0
  )
    throw new Error(`oidc replay: unexpected stream ${stream}`);
  return {
    kind: kind as ResourceKind,
    namespace: namespace === '-' ? '' : decodeURIComponent(namespace),
    name: name.join('/'),
  };
}

/**
 * What a secondary projects of the primary's oidc log, in `mode`. The configuration (named keys
 * with their private keypairs, providers, scopes, clients, assignments) everywhere: Vault
 * replicates the identity store's OIDC configuration to performance secondaries, and their ID
 * tokens must verify against the primary's JWKS. Authorization codes and the access tokens they
 * gave only on a DR secondary: on a performance secondary they are the cluster's own (Vault
 * keeps codes in a node-local cache), issued and redeemed there.
 */
export const projectedInMode = (stream: string, mode: ReplicationMode): boolean =>
  stream.startsWith(CONFIG_PREFIX) || (mode === 'dr' && stream.startsWith(CODE_PREFIX));

export interface OidcReplayDeps {
  db: OidcDb;
  sealed: SealedJson;
  config: OidcConfigProjection;
  codes: OidcCodeProjection;
  defaults: Pick<OidcDefaults, 'forget'>;
}

/**
 * How a secondary's oidc service replays the primary's oidc log with its own projections. The
 * key material is in the events (barrier-encrypted in the log, sealed again by this cluster's
 * barrier in its read model), so nothing is attached (the kit's export answers none); the
 * primary's rotations arrive as its OidcKeyRotated events (a secondary does not rotate: see
 * OidcKeyRotationSweeper).
 */
export function oidcReplica(d: OidcReplayDeps): EngineReplicaSpec {
  /** a redemption or replay names the code only: its grant is in the code's row */
  const grantOf = async (trx: OidcTrx, codeHash: string): Promise<CodeGrant | undefined> => {
    const row = await d.db
      .of(trx)
      .selectFrom('codes')
      .select('body')
      .where('code_hash', '=', codeHash)
      .executeTakeFirst();
    return row ? d.sealed.open<CodeGrant>(row.body, codeAad(codeHash)) : undefined;
  };
  return {
    // the built-in resources are checked again: a wipe removed them, a replay brought the primary's
    onChanged: () => d.defaults.forget(),
    foldable: (event, mode) => projectedInMode(event.stream, mode),
    replayables: [
      replayable(OIDC_CONFIG_LOG, d.config, (_trx, stream) => resourceOfStream(stream)),
      replayable(OIDC_CODE_LOG, d.codes, async (trx, stream, events, ctx): Promise<CodeRef | null> => {
        if (!projectedInMode(stream, ctx.mode)) return null;
        const codeHash = stream.slice(CODE_PREFIX.length);
        const issued = events.find((e) => e.type === 'OidcCodeIssued');
        const grant =
          issued?.type === 'OidcCodeIssued' ? issued.data.grant : await grantOf(trx as OidcTrx, codeHash);
        // the code's row was purged here (expired) before its redemption arrived: nothing to update
        return grant ? { codeHash, grant } : null;
      }),
    ],
  };
}

/** The oidc service's replica endpoint and promotion fold, for its module's providers. */
export const oidcReplicaProvider = (runtime: ServiceRuntime) =>
  engineReplicaProvider(
    runtime,
    OIDC_EVENT_STORE,
    [OidcDb, SealedJson, OidcConfigProjection, OidcCodeProjection, OidcDefaults],
    (
      db: OidcDb,
      sealed: SealedJson,
      config: OidcConfigProjection,
      codes: OidcCodeProjection,
      defaults: OidcDefaults,
    ) => oidcReplica({ db, sealed, config, codes, defaults }),
  );
