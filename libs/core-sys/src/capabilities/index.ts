import type { Provider, Type } from '@nestjs/common';
import { AclService } from './acl.service';
import { CapabilitiesHandlers } from './capabilities.handlers';
import { CapabilitiesService } from './capabilities.service';

export const capabilitiesProviders: Provider[] = [AclService, CapabilitiesService];
export const capabilitiesControllers: Type[] = [CapabilitiesHandlers];

export { AclService } from './acl.service';
