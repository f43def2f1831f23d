import type { Provider, Type } from '@nestjs/common';
import { noProjection, type EventStore } from '@coffer/event-store';
import { CORE_SYS_EVENT_STORE } from '../core-sys.di';
import { WRAPPING_LOG } from './wrapping.events';
import { WrappingHandlers } from './wrapping.handlers';
import { WrappingEventLog } from './wrapping.projection';
import { WrappingJwt } from './wrapping-jwt';
import { WrappingService } from './wrapping.service';

export const wrappingProviders: Provider[] = [
  {
    provide: WrappingEventLog,
    useFactory: (store: EventStore) => WRAPPING_LOG.writer(store, noProjection()),
    inject: [CORE_SYS_EVENT_STORE],
  },
  WrappingService,
  WrappingJwt,
];
export const wrappingControllers: Type[] = [WrappingHandlers];
