import { Injectable } from '@nestjs/common';
import { invalidRequest, notFound, type RequestOf, type ResponseOf } from '@coffer/contracts';
import type { cloudB } from '@coffer/contracts/cloud-b';
import { retryOnConflict } from '@coffer/event-store';
import { CLOUD_B_RECORDS_PK } from '../cloud-b.table';
import { roleEntrySchema } from '../records/cloud-b-record.events';
import { CloudBRecordStore } from '../records/cloud-b-record.store';
import { roleView, writeRole } from './cloud-b-role.rules';

const RETRY = { attempts: 10, uniqueConstraints: [CLOUD_B_RECORDS_PK] };

type Req<K extends keyof typeof cloudB> = RequestOf<(typeof cloudB)[K]>;
type Res<K extends keyof typeof cloudB> = Promise<ResponseOf<(typeof cloudB)[K]>>;

/** roles/:name and the role list. */
@Injectable()
export class CloudBRoleService {
  constructor(private readonly store: CloudBRecordStore) {}

  async list(req: Req<'roleList'>): Res<'roleList'> {
    const keys = await this.store.names(req.mount.uuid, 'role');
    if (keys.length === 0) throw notFound();
    return { data: { keys } };
  }

  async write(req: Req<'roleWrite'>): Res<'roleWrite'> {
    const name = req.params.name;
    if (name === '') throw invalidRequest('missing role name');
    await retryOnConflict(async () => {
      const existing = await this.store.get(req.mount.uuid, 'role', name);
      const current = existing ? roleEntrySchema.parse(existing.state) : undefined;
      const entry = writeRole(current, req.body);
      if (typeof entry === 'string') throw invalidRequest(entry);
      await this.store.append(req.mount.uuid, 'role', name, existing?.version ?? 0, [
        { type: 'CloudBRoleWritten', data: entry },
      ]);
    }, RETRY);
    return {};
  }

  async read(req: Req<'roleRead'>): Res<'roleRead'> {
    const role = await this.store.get(req.mount.uuid, 'role', req.params.name);
    if (!role) throw notFound();
    return { data: roleView(role.state) };
  }

  async delete(req: Req<'roleDelete'>): Res<'roleDelete'> {
    await retryOnConflict(async () => {
      const role = await this.store.get(req.mount.uuid, 'role', req.params.name);
      if (!role) throw notFound();
      await this.store.append(req.mount.uuid, 'role', req.params.name, role.version, [
        { type: 'CloudBRecordDeleted', data: {} },
      ]);
    }, RETRY);
    return {};
  }
}
