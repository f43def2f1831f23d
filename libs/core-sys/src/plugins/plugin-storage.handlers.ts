import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { ContractRequest } from '@coffer/contracts';
import { corePluginStorage, type PluginStorageResult } from '@coffer/contracts/plugins';
import { Handles } from '@coffer/transport';
import { PluginStorageService } from './plugin-storage.service';

/** Storage calls of plugin processes running as NATS services (cluster mode). */
@Controller()
export class PluginStorageHandlers {
  constructor(private readonly storage: PluginStorageService) {}

  @Handles(corePluginStorage)
  call(@Payload() req: ContractRequest<typeof corePluginStorage>): Promise<PluginStorageResult> {
    return this.storage.call(req.plugin, req.secret, req.mount, req.request);
  }
}
