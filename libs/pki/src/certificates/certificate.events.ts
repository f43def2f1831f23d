import { z } from 'zod';
import { defineAggregateLog, defineEvent } from '@coffer/event-store';

/** An issued certificate (stream `pki-cert/<mount uuid>/<serial>`); its private key is never here. */
export const certificateStored = defineEvent(
  'CertificateStored',
  1,
  z.object({ certPem: z.string(), notAfterMs: z.number() }),
);
export const certificateRevoked = defineEvent('CertificateRevoked', 1, z.object({ revokedAtMs: z.number() }));
/** tidy removed it: expired past the safety buffer */
export const certificateTidied = defineEvent('CertificateTidied', 1, z.object({}));

export const CERTIFICATE_EVENT_TYPES = {
  stored: certificateStored,
  revoked: certificateRevoked,
  tidied: certificateTidied,
} as const;

export interface CertificateKey {
  mountUuid: string;
  serial: string;
}

export const CERTIFICATE_LOG = defineAggregateLog({
  description: 'a pki certificate event',
  events: CERTIFICATE_EVENT_TYPES,
  stream: (k: CertificateKey) => `pki-cert/${k.mountUuid}/${k.serial}`,
});
