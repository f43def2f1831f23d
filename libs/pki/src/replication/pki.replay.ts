import type { PkiRoleData } from '@coffer/contracts/pki';
import {
  engineReplicaProvider,
  replayable,
  type AppendedOf,
  type EngineReplicaSpec,
  type EventTable,
  type ReplayContext,
  type ServiceRuntime,
} from '@coffer/event-store';
import { CERTIFICATE_LOG, type CertificateKey } from '../certificates/certificate.events';
import { CertificateProjection } from '../certificates/certificate.projection';
import { ISSUER_LOG, NO_ISSUER, type ISSUER_EVENT_TYPES, type IssuerState } from '../issuer/issuer.events';
import { PKI_MOUNT_LOG } from '../mounts/pki-mount.events';
import { PkiMountProjection } from '../mounts/pki-mount.projection';
import { PKI_EVENT_STORE } from '../pki.di';
import { ROLE_LOG, type ROLE_EVENT_TYPES } from '../roles/role.events';
import { SETTINGS_LOG, type SETTINGS_EVENT_TYPES } from '../settings/settings.events';
import { DocumentProjection, type DocumentAppend } from '../shared/document.projection';
import { DocumentRepository, type DocumentKind } from '../shared/document.repository';
import type { PkiTrx } from '../shared/pki.table';
import {
  UNIFIED_REVOCATION_LOG,
  type UNIFIED_REVOCATION_EVENT_TYPES,
} from '../unified/unified-revocation.events';
import { UnifiedRevocationPass } from '../unified/unified-revocation.pass';
import { PkiReadCaches } from './pki-read-caches.service';

const DOCUMENT_KINDS: readonly DocumentKind[] = [
  'issuer',
  'role',
  'crl-config',
  'urls',
  'crl-state',
  'unified-revocation',
  'cross-revocation',
];

/** `pki-<kind>/<mount uuid>/<name>` (see documentStream) → where the document lives. */
function documentAt(stream: string): Omit<DocumentAppend, 'next'> {
  const [head = '', mountUuid = '', ...rest] = stream.split('/');
  const kind = DOCUMENT_KINDS.find((k) => head === `pki-${k}`);
  if (!kind || mountUuid === '') throw new Error(`pki replay: unexpected stream ${stream}`);
  return { mountUuid, kind, name: rest.join('/') };
}

/** `pki-cert/<mount uuid>/<serial>` → the certificate's key. */
function certificateAt(stream: string): CertificateKey {
  const [, mountUuid = '', serial = ''] = stream.split('/');
  if (mountUuid === '' || serial === '') throw new Error(`pki replay: unexpected stream ${stream}`);
  return { mountUuid, serial };
}

/**
 * Vault's pki LocalStorage (`certs/`, `revoked/`, `crl`, `crls/`): issued certificates, their
 * revocations and the CRL number stay with the cluster that made them, so a performance
 * secondary does not project the primary's (it issues, revokes and rotates its own).
 */
export function pkiLocalStream(stream: string): boolean {
  return stream.startsWith('pki-cert/') || stream.startsWith('pki-crl-state/');
}

const projected = (stream: string, mode: ReplayContext['mode']): boolean =>
  mode === 'dr' || !pkiLocalStream(stream);

/**
 * A document's state after replayed events, as the services decide it when they append them:
 * the issuer document is never removed (a deleted CA leaves an empty one), a deleted role is.
 */
export function documentAfter(
  kind: DocumentKind,
  current: unknown,
  events: readonly Pick<AppendedOf<EventTable>, 'type' | 'data'>[],
): unknown {
  let state = current;
  for (const e of events) {
    const data = e.data as Record<string, unknown>;
    switch (e.type) {
      case 'CaInstalled': {
        const ca = data as { certPem: string; keyPem: string; chainPems: string[] };
        state = { certPem: ca.certPem, keyPem: ca.keyPem, chainPems: ca.chainPems, pendingKeyPem: null };
        break;
      }
      case 'IntermediateKeyGenerated': {
        const issuer = (state ?? NO_ISSUER) as IssuerState;
        state = { ...issuer, pendingKeyPem: data.keyPem };
        break;
      }
      case 'CaDeleted':
        state = { ...NO_ISSUER };
        break;
      case 'PkiRoleWritten':
        state = (data as { role: PkiRoleData }).role;
        break;
      case 'PkiRoleDeleted':
        state = null;
        break;
      default:
        // the settings and unified revocation events carry the whole document
        state = data;
    }
  }
  if (state === undefined) throw new Error(`pki replay: no state for a ${kind} document`);
  return state;
}

export interface PkiReplayDeps {
  docs: DocumentRepository;
  documents: DocumentProjection;
  certificates: CertificateProjection;
  mounts: PkiMountProjection;
  caches: PkiReadCaches;
  /** a replayed unified entry, request or CRL configuration may give this cluster work */
  unifiedPass: Pick<UnifiedRevocationPass, 'kick'>;
}

/**
 * How a secondary's pki service replays the primary's pki log (kept in `pki_replica`) with its
 * own projections: CA, roles and settings in both modes (CA keys travel inside the barrier-
 * encrypted events and are sealed again by this cluster's barrier in the read model), issued
 * certificates and the CRL number on a DR secondary only.
 */
export function pkiReplica(d: PkiReplayDeps): EngineReplicaSpec {
  const documentKey = async (
    trx: unknown,
    stream: string,
    events: readonly AppendedOf<EventTable>[],
    ctx: ReplayContext,
  ): Promise<DocumentAppend | null> => {
    if (!projected(stream, ctx.mode)) return null;
    const at = documentAt(stream);
    const current = await d.docs.load<unknown>(at.mountUuid, at.kind, at.name, trx as PkiTrx);
    return { ...at, next: documentAfter(at.kind, current?.value, events) };
  };
  return {
    // parsed CAs and built CRLs are keyed by read-model versions a replayed or wiped row may repeat
    onChanged: () => {
      d.caches.drop();
      d.unifiedPass.kick();
    },
    replayables: [
      replayable<typeof ISSUER_EVENT_TYPES, DocumentAppend>(ISSUER_LOG, d.documents, documentKey),
      replayable<typeof ROLE_EVENT_TYPES, DocumentAppend>(ROLE_LOG, d.documents, documentKey),
      replayable<typeof SETTINGS_EVENT_TYPES, DocumentAppend>(SETTINGS_LOG, d.documents, documentKey),
      // unified entries and cross-cluster requests: replicated, as Vault's unified storage
      replayable<typeof UNIFIED_REVOCATION_EVENT_TYPES, DocumentAppend>(
        UNIFIED_REVOCATION_LOG,
        d.documents,
        documentKey,
      ),
      replayable(CERTIFICATE_LOG, d.certificates, (_trx, stream, _events, ctx) =>
        projected(stream, ctx.mode) ? certificateAt(stream) : null,
      ),
      // a disabled mount goes in both modes, with whatever this cluster issued under it
      replayable(PKI_MOUNT_LOG, d.mounts, (_trx, stream) => stream.slice('pki-mount/'.length)),
    ],
    // the CA key travels in the (barrier-encrypted) events: nothing to attach
    foldable: (event, mode) => projected(event.stream, mode),
  };
}

/** The pki service's replica endpoint and promotion fold, for its module's providers. */
export const pkiReplicaProvider = (runtime: ServiceRuntime) =>
  engineReplicaProvider(
    runtime,
    PKI_EVENT_STORE,
    [
      DocumentRepository,
      DocumentProjection,
      CertificateProjection,
      PkiMountProjection,
      PkiReadCaches,
      UnifiedRevocationPass,
    ],
    (
      docs: DocumentRepository,
      documents: DocumentProjection,
      certificates: CertificateProjection,
      mounts: PkiMountProjection,
      caches: PkiReadCaches,
      unifiedPass: UnifiedRevocationPass,
    ) => pkiReplica({ docs, documents, certificates, mounts, caches, unifiedPass }),
  );
