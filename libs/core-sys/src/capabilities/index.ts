import type { Provider, Type } from '@nestjs/common';
export const capabilitiesProviders: Provider[] = [];
export const capabilitiesControllers: Type[] = [];
