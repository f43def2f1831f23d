import { Injectable } from '@nestjs/common';
import {
  DomainError,
  invalidRequest,
  isDomainError,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import type { ssh } from '@coffer/contracts/ssh';
import { z } from 'zod';
import { parsePrivateKey } from '../ca/ca-keys';
import { RecordStore } from '../records/record.store';

/** A registered admin key (dynamic roles): the private key text, behind the barrier. */
export const keyRecordSchema = z.object({ key: z.string() });

/** keys/:name: shared private keys that dynamic roles log in to hosts with. */
@Injectable()
export class KeyService {
  constructor(private readonly records: RecordStore) {}

  async write(req: RequestOf<typeof ssh.keyWrite>): Promise<ResponseOf<typeof ssh.keyWrite>> {
    if (req.params.name === '') throw invalidRequest('Missing key_name');
    if (req.body.key === '') throw invalidRequest('Missing key');
    try {
      parsePrivateKey(req.body.key, 'key');
    } catch (error) {
      if (isDomainError(error)) throw invalidRequest('Invalid key');
      throw error;
    }
    await this.records.put(req.mount.uuid, 'key', req.params.name, { key: req.body.key });
    return {};
  }

  async delete(req: RequestOf<typeof ssh.keyDelete>): Promise<ResponseOf<typeof ssh.keyDelete>> {
    await this.records.delete(req.mount.uuid, 'key', req.params.name);
    return {};
  }

  /** The private key text of a registered key (dynamic creds and their revocation). */
  async privateKey(mountUuid: string, name: string): Promise<string> {
    const record = await this.records.get(mountUuid, 'key', name, keyRecordSchema);
    if (!record) throw new DomainError('invalid_request', `key ${JSON.stringify(name)} not found`);
    return record.key;
  }
}
