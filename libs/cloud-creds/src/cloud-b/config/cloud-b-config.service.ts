import { Inject, Injectable } from '@nestjs/common';
import {
  invalidRequest,
  notFound,
  parseGoDuration,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import type { cloudB } from '@coffer/contracts/cloud-b';
import { isConcurrencyError, retryOnConflict, type ServiceRuntime } from '@coffer/event-store';
import { CLOUD_CREDS_RUNTIME } from '../../cloud-creds.di';
import { CLOUD_B_REQUEST_TIMEOUT_S } from '../aws/cloud-b-clients';
import { CLOUD_B_RECORDS_PK } from '../cloud-b.table';
import { CloudBRecordStore } from '../records/cloud-b-record.store';
import { cloudBLeaseView, cloudBRootView } from './cloud-b-config.rules';
import { RootRotation } from './cloud-b-root-rotation.service';

const RETRY = { attempts: 10, uniqueConstraints: [CLOUD_B_RECORDS_PK] };
const NS_PER_SECOND = 1_000_000_000n;

type Req<K extends keyof typeof cloudB> = RequestOf<(typeof cloudB)[K]>;
type Res<K extends keyof typeof cloudB> = Promise<ResponseOf<(typeof cloudB)[K]>>;

/** config/root, config/lease and rotate-root. */
@Injectable()
export class CloudBConfigService {
  constructor(
    private readonly store: CloudBRecordStore,
    private readonly rotation: RootRotation,
    @Inject(CLOUD_CREDS_RUNTIME) private readonly runtime: ServiceRuntime,
  ) {}

  /** Overwrites the root config; the credentials are not checked (as Vault). */
  async rootWrite(req: Req<'rootWrite'>): Res<'rootWrite'> {
    const b = req.body;
    await retryOnConflict(async () => {
      const existing = await this.store.get(req.mount.uuid, 'root', 'root');
      await this.store.append(req.mount.uuid, 'root', 'root', existing?.version ?? 0, [
        {
          type: 'CloudBRootConfigWritten',
          data: {
            access_key: b.access_key ?? '',
            secret_key: b.secret_key ?? '',
            region: b.region ?? '',
            iam_endpoint: b.iam_endpoint ?? '',
            sts_endpoint: b.sts_endpoint ?? '',
            max_retries: b.max_retries,
            request_timeout: b.request_timeout > 0 ? b.request_timeout : CLOUD_B_REQUEST_TIMEOUT_S,
          },
        },
      ]);
    }, RETRY);
    return {};
  }

  /** Never the secret key. */
  async rootRead(req: Req<'rootRead'>): Res<'rootRead'> {
    const root = await this.store.get(req.mount.uuid, 'root', 'root');
    if (!root) throw notFound();
    return { data: cloudBRootView(root.state) };
  }

  async leaseWrite(req: Req<'leaseWrite'>): Res<'leaseWrite'> {
    const { lease, lease_max } = req.body;
    if (lease === '') throw invalidRequest("'lease' is a required parameter");
    if (lease_max === '') throw invalidRequest("'lease_max' is a required parameter");
    const ttl = seconds(lease, 'lease');
    const max = seconds(lease_max, 'lease_max');
    await retryOnConflict(async () => {
      const existing = await this.store.get(req.mount.uuid, 'lease', 'lease');
      await this.store.append(req.mount.uuid, 'lease', 'lease', existing?.version ?? 0, [
        { type: 'CloudBLeaseConfigWritten', data: { lease: ttl, lease_max: max } },
      ]);
    }, RETRY);
    return {};
  }

  async leaseRead(req: Req<'leaseRead'>): Res<'leaseRead'> {
    const lease = await this.store.get(req.mount.uuid, 'lease', 'lease');
    if (!lease) throw notFound();
    return { data: cloudBLeaseView(lease.state) };
  }

  async rotateRoot(req: Req<'rotateRoot'>): Res<'rotateRoot'> {
    try {
      const { accessKey, warnings } = await this.rotation.rotate(req.mount.uuid, this.runtime.clock());
      return { data: { access_key: accessKey }, warnings };
    } catch (error) {
      if (isConcurrencyError(error))
        throw invalidRequest('a root credential rotation is already in progress');
      throw error;
    }
  }
}

/** A Go duration in whole seconds (time.ParseDuration: "h" is the largest unit). */
function seconds(text: string, field: string): number {
  try {
    return Number(parseGoDuration(text) / NS_PER_SECOND);
  } catch (error) {
    throw invalidRequest(`Invalid ${field}: ${error instanceof Error ? error.message : 'invalid duration'}`);
  }
}
