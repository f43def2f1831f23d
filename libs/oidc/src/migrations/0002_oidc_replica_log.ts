import { replicaLogMigration } from '@coffer/event-store';
import { OIDC_SCHEMA } from '../oidc.di';

/**
 * oidc_replica: where a secondary keeps the primary's oidc rows (the service keeps writing its
 * own codes and access tokens locally on a performance secondary). Frozen.
 */
export const oidcReplicaLog0002 = replicaLogMigration(OIDC_SCHEMA);
