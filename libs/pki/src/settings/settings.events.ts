import { z } from 'zod';
import { defineAggregateLog, defineEvent } from '@coffer/event-store';
import { documentStream, type DocumentAppend } from '../shared/document.projection';

/** Mount-wide settings: CRL configuration, URLs, and the CRL's number (one stream each). */
/** The unified-revocation fields came later: events written before lack them (their defaults). */
export const crlConfigWritten = defineEvent(
  'CrlConfigWritten',
  1,
  z.object({
    expiry: z.string(),
    disable: z.boolean(),
    auto_rebuild: z.boolean().optional(),
    auto_rebuild_grace_period: z.string().optional(),
    cross_cluster_revocation: z.boolean().optional(),
    unified_crl: z.boolean().optional(),
    unified_crl_on_existing_paths: z.boolean().optional(),
  }),
);
export const urlsWritten = defineEvent(
  'UrlsWritten',
  1,
  z.object({
    issuing_certificates: z.array(z.string()),
    crl_distribution_points: z.array(z.string()),
    ocsp_servers: z.array(z.string()),
  }),
);
/** The CRL was rebuilt (a revocation, crl/rotate, a new CA): its number and time. */
export const crlRotated = defineEvent(
  'CrlRotated',
  1,
  z.object({ number: z.number().int(), atMs: z.number() }),
);

export const SETTINGS_EVENT_TYPES = {
  crlConfig: crlConfigWritten,
  urls: urlsWritten,
  crlRotated,
} as const;

export const SETTINGS_LOG = defineAggregateLog({
  description: 'a pki settings event',
  events: SETTINGS_EVENT_TYPES,
  stream: (a: DocumentAppend) => documentStream(a),
});

export interface CrlConfig {
  expiry: string;
  disable: boolean;
  /** Vault rebuilds the CRL on a timer instead of at each revocation; here every read is current */
  auto_rebuild: boolean;
  auto_rebuild_grace_period: string;
  /** a serial unknown here is queued for the cluster that issued it */
  cross_cluster_revocation: boolean;
  /** every cluster records its revocations centrally; unified-crl lists them all */
  unified_crl: boolean;
  /** crl and crl/pem serve the unified CRL */
  unified_crl_on_existing_paths: boolean;
}
export const DEFAULT_CRL_CONFIG: CrlConfig = {
  expiry: '72h',
  disable: false,
  auto_rebuild: false,
  auto_rebuild_grace_period: '12h',
  cross_cluster_revocation: false,
  unified_crl: false,
  unified_crl_on_existing_paths: false,
};

export interface CrlState {
  number: number;
  atMs: number;
}
