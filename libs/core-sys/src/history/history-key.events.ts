import { z } from 'zod';
import { defineAggregateLog, defineEvent, type EventOf } from '@coffer/event-store';

/**
 * The tree-head signing key, generated once per cluster: an event, so it lives behind the barrier
 * (event payloads are barrier-encrypted) and replicates with the log. One stream, appended at
 * version 0: the first replica to generate it wins, the others read it back.
 */
export const historySigningKeyGenerated = defineEvent(
  'HistorySigningKeyGenerated',
  1,
  z.object({
    /** PKCS#8 DER, base64 */
    private_key: z.string(),
    /** SPKI PEM */
    public_key: z.string(),
  }),
);

export const HISTORY_KEY_EVENT_TYPES = { generated: historySigningKeyGenerated } as const;
export type HistoryKeyEvent = EventOf<typeof HISTORY_KEY_EVENT_TYPES>;

export const HISTORY_KEY_LOG = defineAggregateLog({
  description: 'a history signing key event',
  events: HISTORY_KEY_EVENT_TYPES,
  stream: () => 'history/signing-key',
});
