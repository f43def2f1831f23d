import type { Provider, Type } from '@nestjs/common';
import { PluginSupervisor } from '../plugins';
import { RekeyService } from '../rekey';
import { LEADER_SERVED } from '../seal/leader-served';
import { GenerateRootHandlers } from './generate-root.handlers';
import { GenerateRootService } from './generate-root.service';

export const generateRootProviders: Provider[] = [
  GenerateRootService,
  // What runs on the seal leader only: the rekey and root generation attempts, the plugin processes.
  {
    provide: LEADER_SERVED,
    useFactory: (rekey: RekeyService, root: GenerateRootService, plugins: PluginSupervisor) => [
      rekey,
      root,
      plugins,
    ],
    inject: [RekeyService, GenerateRootService, PluginSupervisor],
  },
];
export const generateRootControllers: Type[] = [GenerateRootHandlers];
export { OperationTokenGenerator, type OperationTokenOptions } from './operation-token.generator';
export { xorDecodeToken, xorEncodeToken } from './operation-token.decider';
