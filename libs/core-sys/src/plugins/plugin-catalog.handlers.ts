import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  pluginCatalogContracts as c,
  type CallerContext,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { Caller, Handles } from '@coffer/transport';
import { PluginCatalogService } from './plugin-catalog.service';

@Controller()
export class PluginCatalogHandlers {
  constructor(private readonly plugins: PluginCatalogService) {}

  @Handles(c.pluginCatalog)
  catalog(@Caller() caller: CallerContext): Promise<ResponseOf<typeof c.pluginCatalog>> {
    return this.plugins.catalog(caller);
  }

  @Handles(c.pluginList)
  list(
    @Payload() req: RequestOf<typeof c.pluginList>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof c.pluginList>> {
    return this.plugins.list(req, caller);
  }

  @Handles(c.pluginRegister)
  register(
    @Payload() req: RequestOf<typeof c.pluginRegister>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof c.pluginRegister>> {
    return this.plugins.register(req, caller);
  }

  @Handles(c.pluginRead)
  read(
    @Payload() req: RequestOf<typeof c.pluginRead>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof c.pluginRead>> {
    return this.plugins.read(req, caller);
  }

  @Handles(c.pluginRemove)
  remove(
    @Payload() req: RequestOf<typeof c.pluginRemove>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof c.pluginRemove>> {
    return this.plugins.remove(req, caller);
  }
}
