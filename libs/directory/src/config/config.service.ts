import { Injectable } from '@nestjs/common';
import { invalidRequest, notFound, type RequestOf, type ResponseOf } from '@coffer/contracts';
import type { directory } from '@coffer/contracts/directory';
import { isConcurrencyError, retryOnConflict } from '@coffer/event-store';
import { RecordStore } from '../records/record.store';
import { PasswordRotation } from '../rotation/password-rotation.service';
import { RECORDS_PK } from '../shared/directory.table';
import { directoryConfigView, mergeConfig } from './config.rules';

const RETRY = { attempts: 10, uniqueConstraints: [RECORDS_PK] };
/** Vault's text for a write a performance secondary does not run itself */
const READ_ONLY_STORAGE = 'cannot write to readonly storage';
const ROOT_ROTATION_RUNNING = 'Root password rotation is already in progress.';

/** config and rotate-root. */
@Injectable()
export class ConfigService {
  constructor(
    private readonly store: RecordStore,
    private readonly rotation: PasswordRotation,
  ) {}

  async write(
    req: RequestOf<typeof directory.configWrite>,
  ): Promise<ResponseOf<typeof directory.configWrite>> {
    const mountUuid = req.mount.uuid;
    await retryOnConflict(async () => {
      const existing = await this.store.get(mountUuid, 'config', 'config');
      const merged = mergeConfig(req.body, existing?.state, req.mount);
      await this.store.append(mountUuid, 'config', 'config', existing?.version ?? 0, [
        {
          type: 'DirectoryConfigWritten',
          data: {
            connection: merged.connection,
            passwords: merged.passwords,
            ...(merged.bindpass !== undefined ? { bindpass: merged.bindpass } : {}),
          },
        },
      ]);
    }, RETRY);
    return {};
  }

  /** Never the bind password. */
  async read(req: RequestOf<typeof directory.configRead>): Promise<ResponseOf<typeof directory.configRead>> {
    const config = await this.store.get(req.mount.uuid, 'config', 'config');
    if (!config) throw notFound();
    return { data: directoryConfigView(config.state) };
  }

  async delete(
    req: RequestOf<typeof directory.configDelete>,
  ): Promise<ResponseOf<typeof directory.configDelete>> {
    await retryOnConflict(async () => {
      const existing = await this.store.get(req.mount.uuid, 'config', 'config');
      if (!existing) return;
      await this.store.append(req.mount.uuid, 'config', 'config', existing.version, [
        { type: 'DirectoryRecordDeleted', data: {} },
      ]);
    }, RETRY);
    return {};
  }

  /** A new bind password only Coffer knows: 204, or 200 with a warning while one is under way. */
  async rotateRoot(
    req: RequestOf<typeof directory.rotateRoot>,
  ): Promise<ResponseOf<typeof directory.rotateRoot>> {
    const config = await this.rotation.config(req.mount.uuid);
    // the GET form is not forwarded by a performance secondary: the primary's bind password stays
    if (!(await this.store.writableHere(req.mount.uuid, 'config', config)))
      throw invalidRequest(READ_ONLY_STORAGE);
    if (config.state.password.pending) return { warnings: [ROOT_ROTATION_RUNNING] };
    try {
      await this.rotation.rotate(req.mount.uuid, 'config', config, config, config.state.connection.binddn);
    } catch (error) {
      if (isConcurrencyError(error)) return { warnings: [ROOT_ROTATION_RUNNING] };
      throw error;
    }
    // 204 for the GET form too (a read without data would be a 404)
    return { status: 204 };
  }
}
