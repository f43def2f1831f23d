import { Injectable } from '@nestjs/common';
import { retryOnConflict } from '@coffer/event-store';
import type { z } from 'zod';
import { SealedJson } from '../shared/sealed-json';
import { RECORDS_PK } from '../shared/ssh.table';
import { recordStream, type RecordKind } from './record.events';
import { RecordEventLog } from './record.projection';
import { RecordRepository } from './record.repository';

const RETRY = { attempts: 10, uniqueConstraints: [RECORDS_PK] };

/** Typed reads and whole-value writes of one kind of settings record. */
@Injectable()
export class RecordStore {
  constructor(
    private readonly repo: RecordRepository,
    private readonly log: RecordEventLog,
    private readonly sealed: SealedJson,
  ) {}

  async get<T>(
    mountUuid: string,
    kind: RecordKind,
    name: string,
    schema: z.ZodType<T>,
  ): Promise<T | undefined> {
    const row = await this.repo.get(mountUuid, kind, name);
    return row
      ? schema.parse(this.sealed.open(row.body, recordStream({ mountUuid, kind, name })))
      : undefined;
  }

  /** Two records read in one round trip, each with its stream version. */
  async getPair<A, B>(
    mountUuid: string,
    a: { kind: RecordKind; name: string; schema: z.ZodType<A> },
    b: { kind: RecordKind; name: string; schema: z.ZodType<B> },
  ): Promise<[{ value: A; version: number } | undefined, { value: B; version: number } | undefined]> {
    const rows = await this.repo.getMany(mountUuid, [a, b]);
    const pick = <T>(k: { kind: RecordKind; name: string; schema: z.ZodType<T> }) => {
      const row = rows.find((r) => r.kind === k.kind && r.name === k.name);
      if (!row) return undefined;
      const value = k.schema.parse(
        this.sealed.open(row.body, recordStream({ mountUuid, kind: k.kind, name: k.name })),
      );
      return { value, version: row.stream_version };
    };
    return [pick(a), pick(b)];
  }

  async list<T>(
    mountUuid: string,
    kind: RecordKind,
    schema: z.ZodType<T>,
  ): Promise<Array<{ name: string; value: T }>> {
    const rows = await this.repo.list(mountUuid, kind);
    return rows.map((row) => ({
      name: row.name,
      value: schema.parse(this.sealed.open(row.body, recordStream({ mountUuid, kind, name: row.name }))),
    }));
  }

  async put(mountUuid: string, kind: RecordKind, name: string, value: unknown): Promise<void> {
    await retryOnConflict(async () => {
      const head = await this.repo.get(mountUuid, kind, name);
      await this.log.append(
        { mountUuid, kind, name, exists: head !== undefined },
        head?.stream_version ?? 'any',
        [{ type: 'SshRecordWritten', data: { kind, value } }],
      );
    }, RETRY);
  }

  /** The record, created with `value` if there is none yet (concurrent creators agree on one). */
  async getOrCreate<T>(
    mountUuid: string,
    kind: RecordKind,
    name: string,
    schema: z.ZodType<T>,
    value: T,
  ): Promise<T> {
    return retryOnConflict(async () => {
      const existing = await this.get(mountUuid, kind, name, schema);
      if (existing !== undefined) return existing;
      await this.log.append({ mountUuid, kind, name, exists: false }, 'any', [
        { type: 'SshRecordWritten', data: { kind, value } },
      ]);
      return value;
    }, RETRY);
  }

  /** Removes the record; false when there was none. */
  async delete(mountUuid: string, kind: RecordKind, name: string): Promise<boolean> {
    return retryOnConflict(async () => {
      const head = await this.repo.get(mountUuid, kind, name);
      if (!head) return false;
      await this.log.append({ mountUuid, kind, name, exists: true }, head.stream_version, [
        { type: 'SshRecordDeleted', data: { kind } },
      ]);
      return true;
    }, RETRY);
  }
}
