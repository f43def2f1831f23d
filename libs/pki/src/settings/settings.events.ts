import { z } from 'zod';
import { defineAggregateLog, defineEvent } from '@coffer/event-store';
import { documentStream, type DocumentAppend } from '../shared/document.projection';

/** Mount-wide settings: CRL configuration, URLs, and the CRL's number (one stream each). */
export const crlConfigWritten = defineEvent(
  'CrlConfigWritten',
  1,
  z.object({ expiry: z.string(), disable: z.boolean() }),
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
}
export const DEFAULT_CRL_CONFIG: CrlConfig = { expiry: '72h', disable: false };

export interface CrlState {
  number: number;
  atMs: number;
}
