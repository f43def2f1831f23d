import { z } from 'zod';
import { defineAggregateLog, defineEvent, type EventOf } from '@coffer/event-store';
import { codeGrantSchema, type CodeGrant } from './grant.state';

/**
 * Events of one authorization code (`oidc-code/<sha256 of the code>`): issued, then redeemed
 * once (with the access token it gave, by hash, or none when the exchange was refused), then,
 * if presented again, replayed, which revokes what it gave (RFC 6749 section 4.1.2).
 */
export const oidcCodeIssued = defineEvent('OidcCodeIssued', 1, z.object({ grant: codeGrantSchema }));
export const oidcCodeRedeemed = defineEvent(
  'OidcCodeRedeemed',
  1,
  z.object({ accessTokenHash: z.string().nullable(), accessTokenExpiresAtMs: z.number().int() }),
);
export const oidcCodeReplayed = defineEvent('OidcCodeReplayed', 1, z.object({}));

export const OIDC_CODE_EVENT_TYPES = { oidcCodeIssued, oidcCodeRedeemed, oidcCodeReplayed } as const;
export type OidcCodeEvent = EventOf<typeof OIDC_CODE_EVENT_TYPES>;

/** An append's key: the code's hash and, once issued, its grant (the access token's row needs it). */
export interface CodeRef {
  codeHash: string;
  grant: CodeGrant;
}

export const OIDC_CODE_LOG = defineAggregateLog({
  description: 'an OIDC authorization code event',
  events: OIDC_CODE_EVENT_TYPES,
  stream: (ref: CodeRef) => `oidc-code/${ref.codeHash}`,
});
