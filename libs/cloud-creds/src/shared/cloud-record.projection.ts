import type { Cipher } from '@coffer/barrier';
import type { AnyTrx } from '@coffer/event-store';
import type { z } from 'zod';
import type { CloudRecordRepository } from './cloud-record.repository';

/** A record's state behind the barrier, bound to its stream (a moved row does not decrypt). */
export class CloudRecordSealer<S> {
  constructor(
    private readonly cipher: Cipher,
    private readonly schema: z.ZodType<S>,
  ) {}

  seal(state: S, stream: string): Buffer {
    return this.cipher.encrypt(Buffer.from(JSON.stringify(state), 'utf8'), Buffer.from(stream, 'utf8'));
  }

  open(sealed: Buffer, stream: string): S {
    const json: unknown = JSON.parse(
      this.cipher.decrypt(sealed, Buffer.from(stream, 'utf8')).toString('utf8'),
    );
    return this.schema.parse(json);
  }
}

/** How one mount type folds its events into a record's state (pure). */
export interface CloudRecordFold<Kind extends string, S, E> {
  repo: CloudRecordRepository<Kind>;
  sealer: CloudRecordSealer<S>;
  /** the state after `event` (undefined: the record does not exist) */
  evolve(kind: Kind, state: S | undefined, event: E): S | undefined;
  /** when the recovery pass is to look at the record (null: never) */
  recoverAt(state: S): Date | null;
}

/**
 * A record's row after `events`, in the append's transaction: its state folded forward and sealed,
 * or the row deleted when the record ends.
 */
export async function projectCloudRecord<Kind extends string, S, E>(
  fold: CloudRecordFold<Kind, S, E>,
  trx: AnyTrx,
  key: { mountUuid: string; kind: Kind; name: string },
  stream: string,
  events: readonly E[],
  version: number,
): Promise<void> {
  const row = await fold.repo.get(key.mountUuid, key.kind, key.name, trx);
  let state = row ? fold.sealer.open(row.body, stream) : undefined;
  for (const event of events) state = fold.evolve(key.kind, state, event);
  if (state === undefined) {
    if (row) await fold.repo.delete(trx, key.mountUuid, key.kind, key.name);
    return;
  }
  await fold.repo.upsert(trx, {
    mount_uuid: key.mountUuid,
    kind: key.kind,
    name: key.name,
    body: fold.sealer.seal(state, stream),
    stream_version: version,
    recover_at: fold.recoverAt(state),
  });
}
