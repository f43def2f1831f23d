import { Injectable } from '@nestjs/common';
import {
  DomainError,
  isJsonObject,
  notFound,
  type EngineRequest,
  type kvV1,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { DataKeyCipher, flatLocation } from '../shared/data-keys';
import { pathParam } from '../shared/engine-request';
import { assertSecretPath, isSecretPath, listFolder } from '../shared/paths';
import { StreamWriter } from '../shared/stream-writer';
import { Vacuum } from '../shared/vacuum';
import { decideDelete, decideWrite, leaseAdvice } from './flat.decider';
import { flatStream as streamOf, type FlatKind } from './flat.events';
import { FlatEventLog } from './flat.projection';
import { FlatRepository, type FlatScope } from './flat.repository';

// kv v1 and cubbyhole contracts declare the same schemas, so one set of types serves both.
type FlatRequest<Op extends 'read' | 'write' | 'delete' | 'list'> = RequestOf<(typeof kvV1)[Op]>;
type FlatResponse<Op extends 'read' | 'write' | 'delete' | 'list'> = ResponseOf<(typeof kvV1)[Op]>;

/** Read, write, delete, list and existence of unversioned secrets (kv v1 and cubbyhole). */
@Injectable()
export class FlatSecretService {
  constructor(
    private readonly repo: FlatRepository,
    private readonly log: FlatEventLog,
    private readonly dataKeys: DataKeyCipher,
    private readonly vacuum: Vacuum,
    private readonly writer: StreamWriter,
  ) {}

  async read(kind: FlatKind, scope: FlatScope, req: FlatRequest<'read'>): Promise<FlatResponse<'read'>> {
    const path = pathParam(req);
    if (!isSecretPath(path)) throw notFound();
    const row = await this.repo.read(scope, path, streamOf(kind, scope, path));
    if (!row) throw notFound();
    if (!row.wrapped) throw new DomainError('internal', 'kv: the data key of a secret is missing');
    const plaintext = this.dataKeys.open(
      { keyId: row.key_id, wrappedKey: row.wrapped, ciphertext: row.ciphertext },
      flatLocation(scope.mountUuid, scope.owner, path),
    );
    const data: unknown = JSON.parse(plaintext.toString('utf8'));
    if (!isJsonObject(data)) throw new DomainError('internal', 'kv: stored data is not an object');
    if (kind === 'cubbyhole') return { data };
    return { data, lease: { lease_id: '', lease_duration: leaseAdvice(data, req.mount), renewable: false } };
  }

  /** Replaces the secret; the previous value's data key is erased in the same transaction. */
  async write(kind: FlatKind, scope: FlatScope, req: FlatRequest<'write'>): Promise<FlatResponse<'write'>> {
    const path = pathParam(req);
    assertSecretPath(path);
    const plaintext = Buffer.from(JSON.stringify(req.body), 'utf8');
    await this.writer.run(streamOf(kind, scope, path), async () => {
      const head = await this.repo.head(scope, path);
      const sealed = this.dataKeys.seal(plaintext, flatLocation(scope.mountUuid, scope.owner, path));
      const events = decideWrite({ keyId: sealed.keyId, ciphertext: sealed.ciphertext.toString('base64') });
      await this.log.append(
        { kind, scope, path, previousKeyId: head?.key_id ?? null, sealed },
        head?.stream_version ?? 'any',
        events,
      );
    });
    return {};
  }

  /** Removes the secret and erases its data key, then vacuums so the key leaves the heap. */
  async delete(
    kind: FlatKind,
    scope: FlatScope,
    req: FlatRequest<'delete'>,
  ): Promise<FlatResponse<'delete'>> {
    const path = pathParam(req);
    if (!isSecretPath(path)) return {};
    const removed = await this.writer.run(streamOf(kind, scope, path), async () => {
      const head = await this.repo.head(scope, path);
      const events = decideDelete(head ? { keyId: head.key_id } : null);
      if (!head || events.length === 0) return false;
      await this.log.append({ kind, scope, path, previousKeyId: head.key_id }, head.stream_version, events);
      return true;
    });
    if (removed) await this.vacuum.request();
    return {};
  }

  async list(scope: FlatScope, req: FlatRequest<'list'>): Promise<FlatResponse<'list'>> {
    const keys = await this.repo.list(scope, listFolder(pathParam(req)));
    if (keys.length === 0) throw notFound();
    return { data: { keys } };
  }

  async exists(scope: FlatScope, req: EngineRequest): Promise<{ exists: boolean }> {
    const path = pathParam(req);
    if (!isSecretPath(path)) return { exists: false };
    return { exists: (await this.repo.head(scope, path)) !== undefined };
  }
}
