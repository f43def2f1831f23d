import { Inject, Injectable } from '@nestjs/common';
import {
  coreMountTable,
  encodeContext,
  invalidRequest,
  mountInfoSchema,
  type MountInfo,
} from '@coffer/contracts';
import { pki } from '@coffer/contracts/pki';
import { replicationForward } from '@coffer/contracts/replication';
import { ConcurrencyError, type ServiceRuntime } from '@coffer/event-store';
import { DrStandby } from '@coffer/scheduling';
import { PKI_RUNTIME } from '../pki.di';
import { UnifiedRevocationEventLog } from '../shared/document-logs';
import { DocumentRepository } from '../shared/document.repository';
import type { CrossRevocationRequest, UnifiedRevocation } from './unified-revocation.events';

/**
 * The replicated revocation records of a mount: the unified CRL's entries and the cross-cluster
 * revocation requests. The primary writes them into its own pki log (streamed to every
 * secondary, which replays them into its read model); a performance secondary forwards them to
 * its primary over the cluster connection, as Vault's secondaries write replicated storage.
 */
@Injectable()
export class UnifiedRevocationService {
  constructor(
    private readonly docs: DocumentRepository,
    private readonly log: UnifiedRevocationEventLog,
    private readonly standby: DrStandby,
    @Inject(PKI_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock' | 'transport'>,
  ) {}

  /** The unified CRL's entries, by serial. */
  entries(mountUuid: string): Promise<Map<string, UnifiedRevocation>> {
    return this.docs.all<UnifiedRevocation>(mountUuid, 'unified-revocation');
  }

  /** The pending and served cross-cluster revocation requests, by serial. */
  requests(mountUuid: string): Promise<Map<string, CrossRevocationRequest>> {
    return this.docs.all<CrossRevocationRequest>(mountUuid, 'cross-revocation');
  }

  async entry(mountUuid: string, serial: string): Promise<UnifiedRevocation | undefined> {
    return (await this.docs.load<UnifiedRevocation>(mountUuid, 'unified-revocation', serial))?.value;
  }

  /** Records a revocation this cluster made for the unified CRL (here, or on the primary). */
  async record(mountUuid: string, entry: UnifiedRevocation, mount?: MountInfo): Promise<void> {
    if (await this.standby.performanceSecondary())
      await this.forward(pki.unifiedRevocationRecord.subject, mountUuid, mount, {
        serial: entry.serial,
        revoked_at_ms: entry.revokedAtMs,
        issuer_key_id: entry.issuerKeyId,
      });
    else await this.recordHere(mountUuid, entry);
  }

  /** Queues a serial this cluster does not hold for the cluster that issued it. */
  async request(mountUuid: string, serial: string, mount?: MountInfo): Promise<void> {
    if (await this.standby.performanceSecondary())
      await this.forward(pki.crossRevocationRequest.subject, mountUuid, mount, { serial });
    else await this.requestHere(mountUuid, serial);
  }

  /** On the primary (or a cluster without replication): the first record of a serial stays. */
  recordHere(mountUuid: string, entry: UnifiedRevocation): Promise<void> {
    return this.appendOnce(mountUuid, 'unified-revocation', entry.serial, entry, [
      { type: 'UnifiedRevocationRecorded', data: entry },
    ]);
  }

  requestHere(mountUuid: string, serial: string): Promise<void> {
    const request = { serial, requestedAtMs: this.runtime.clock().getTime() };
    return this.appendOnce(mountUuid, 'cross-revocation', serial, request, [
      { type: 'CrossRevocationRequested', data: request },
    ]);
  }

  private async appendOnce(
    mountUuid: string,
    kind: 'unified-revocation' | 'cross-revocation',
    serial: string,
    next: unknown,
    events: Parameters<UnifiedRevocationEventLog['append']>[2],
  ): Promise<void> {
    if (await this.docs.load(mountUuid, kind, serial)) return;
    try {
      await this.log.append({ mountUuid, kind, name: serial, next }, 0, events);
    } catch (error) {
      // another replica (or a forwarded copy) recorded it first: the same fact
      if (!(error instanceof ConcurrencyError)) throw error;
    }
  }

  private async forward(
    subject: string,
    mountUuid: string,
    given: MountInfo | undefined,
    body: Record<string, string | number>,
  ): Promise<void> {
    const mount = given ?? (await this.mountInfo(mountUuid));
    await this.runtime.transport.request(
      replicationForward,
      {
        subject,
        service: 'pki',
        request: { operation: 'update', mount, path: '', params: {}, body, query: {}, headers: {} },
        // the pki service records it for itself: no caller behind it to account for
        context: encodeContext({
          requestId: 'pki-unified-revocation',
          namespace: mount.namespace,
          clientAddress: '',
          policies: [],
        }),
      },
      { write: true },
    );
  }

  /** A background pass has only the mount's uuid: its entry from core-sys's table. */
  private async mountInfo(mountUuid: string): Promise<MountInfo> {
    const { mounts } = await this.runtime.transport.request(coreMountTable, {});
    const mount = mounts.find((m) => m.uuid === mountUuid);
    if (!mount) throw invalidRequest(`no mount ${mountUuid}`);
    return mountInfoSchema.parse(mount);
  }
}
