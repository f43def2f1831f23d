import type { ServiceAggregate } from '@coffer/event-store';
import { CERTIFICATE_LOG } from './certificates/certificate.events';
import { SETTINGS_LOG } from './settings/settings.events';
import { ISSUER_LOG } from './issuer/issuer.events';
import { PKI_MOUNT_LOG } from './mounts/pki-mount.events';
import { ROLE_LOG } from './roles/role.events';
import { UNIFIED_REVOCATION_LOG } from './unified/unified-revocation.events';

/** Every aggregate of the pki event log: the service's registry is composed of these. */
export const PKI_LOGS: readonly ServiceAggregate[] = [
  ISSUER_LOG,
  ROLE_LOG,
  SETTINGS_LOG,
  CERTIFICATE_LOG,
  PKI_MOUNT_LOG,
  UNIFIED_REVOCATION_LOG,
];
