import type { ServiceAggregate } from '@coffer/event-store';
import { OIDC_CONFIG_LOG } from './config/oidc-config.events';
import { OIDC_CODE_LOG } from './grants/grant.events';

/** Every aggregate of the oidc event log: the service's registry is composed of these. */
export const OIDC_LOGS: readonly ServiceAggregate[] = [OIDC_CONFIG_LOG, OIDC_CODE_LOG];
