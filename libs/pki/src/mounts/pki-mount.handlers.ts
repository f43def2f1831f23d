import { Controller, Injectable } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { mountDisabled } from '@coffer/contracts';
import { OnBroadcast } from '@coffer/transport';
import type { z } from 'zod';
import { DocumentRepository } from '../shared/document.repository';
import { PkiMountEventLog } from './pki-mount.projection';

/**
 * A disabled pki mount leaves nothing readable behind: one event removes its CA, roles, settings
 * and certificates from the read model. Every replica hears the broadcast; the first one does it.
 */
@Injectable()
export class PkiMountService {
  constructor(
    private readonly docs: DocumentRepository,
    private readonly log: PkiMountEventLog,
  ) {}

  async disabled(mount: { uuid: string; type: string; path: string }): Promise<void> {
    if (mount.type !== 'pki' || !(await this.docs.hasAny(mount.uuid))) return;
    await this.log.append(mount.uuid, 'any', [{ type: 'PkiMountPurged', data: { path: mount.path } }]);
  }
}

/** Broadcasts every pki replica receives (no logic). */
@Controller()
export class PkiBroadcastHandlers {
  constructor(private readonly mounts: PkiMountService) {}

  @OnBroadcast(mountDisabled)
  mountDisabled(@Payload() payload: z.output<typeof mountDisabled.payload>): Promise<void> {
    return this.mounts.disabled(payload);
  }
}
