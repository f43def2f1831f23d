import type { Provider, Type } from '@nestjs/common';
import { RekeyService } from '../rekey';
import { LEADER_SERVED } from '../seal/leader-served';
import { GenerateRootHandlers } from './generate-root.handlers';
import { GenerateRootService } from './generate-root.service';

export const generateRootProviders: Provider[] = [
  GenerateRootService,
  // The leader-only attempts the seal coordinator serves (rekey and root generation).
  {
    provide: LEADER_SERVED,
    useFactory: (rekey: RekeyService, root: GenerateRootService) => [rekey, root],
    inject: [RekeyService, GenerateRootService],
  },
];
export const generateRootControllers: Type[] = [GenerateRootHandlers];
export { OperationTokenGenerator, type OperationTokenOptions } from './operation-token.generator';
export { xorDecodeToken, xorEncodeToken } from './operation-token.decider';
