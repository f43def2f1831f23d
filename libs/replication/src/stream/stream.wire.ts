import { z } from 'zod';
import { ERROR_CODES } from '@coffer/contracts';
import {
  forwardedAnswerSchema,
  forwardedWriteSchema,
  REPLICATION_MODES,
  replicaAttachmentSchema,
} from '@coffer/contracts/replication';

/**
 * The cluster connection's protocol: newline-delimited JSON frames over TLS-PSK (the secondary
 * id is the PSK identity, the pre-shared key came with the activation token). The secondary
 * says hello with its positions; the primary streams each log from there and heartbeats its
 * heads; the secondary acknowledges what it applied.
 */
export const wireEventSchema = z.object({
  wal: z.number().int().positive(),
  stream: z.string(),
  streamVersion: z.number().int().positive(),
  type: z.string(),
  schemaVersion: z.number().int(),
  /** base64 of the barrier ciphertext, as stored */
  payload: z.string(),
  recordedAt: z.string(),
  hash: z.string(),
  /** a row of a mount filtered out for this secondary: its place and hash, no payload */
  filtered: z.boolean().optional(),
});
export type WireEvent = z.infer<typeof wireEventSchema>;

const headSchema = z.object({ source: z.string(), lastWal: z.number().int(), hash: z.string() });

export const clientFrameSchema = z.discriminatedUnion('t', [
  z.object({
    t: z.literal('hello'),
    mode: z.enum(REPLICATION_MODES),
    clusterId: z.string(),
    secondaryId: z.string(),
    apiAddr: z.string(),
    clusterAddr: z.string(),
    positions: z.array(headSchema),
    /**
     * Split-brain fencing: this secondary was promoted, and tells the primary it left to step
     * down (demote) instead of streaming. Authenticated by the secondary's pre-shared key.
     */
    stepDown: z.boolean().optional(),
    /** the highest primary epoch this secondary has seen: a primary below it is superseded */
    epoch: z.number().int().nonnegative().optional(),
    /**
     * Write forwarding (performance): this connection carries the writes the secondary's gateway
     * authorised (`forward` frames, any number, concurrently), not a stream; the value is the
     * forwarding protocol the secondary speaks (FORWARDING_PROTOCOL).
     */
    forwarding: z.number().int().positive().optional(),
    /**
     * Forwarding protocol 1 (one write in the hello, one connection per write): still parsed so
     * that a primary refuses an older secondary with a reason instead of streaming to it.
     */
    forward: z.unknown().optional(),
  }),
  z.object({ t: z.literal('ack'), positions: z.array(headSchema) }),
  /**
   * One forwarded write on a forwarding connection: `id` (unique on the connection) matches its
   * answer; `epoch` is the highest primary epoch the secondary has seen when it sent it.
   */
  z.object({
    t: z.literal('forward'),
    id: z.number().int().nonnegative(),
    epoch: z.number().int().nonnegative(),
    write: forwardedWriteSchema,
  }),
]);
export type ClientFrame = z.infer<typeof clientFrameSchema>;

/**
 * Every frame of the primary carries its epoch (ModeState.epoch: bumped when the set's primary
 * changes, on enable, demote and promote), so a secondary can refuse the frames of a primary a
 * promotion superseded (see frame-epoch.ts).
 */
const stamped = <T extends z.ZodRawShape>(shape: T) =>
  z.object({ ...shape, epoch: z.number().int().nonnegative() });

export const serverFrameSchema = z.discriminatedUnion('t', [
  stamped({ t: z.literal('welcome'), clusterId: z.string() }),
  /** the primary will not stream to this secondary: revoked, not a primary, another set */
  stamped({ t: z.literal('refused'), reason: z.string() }),
  /**
   * The primary's barrier keyrings (serialized, base64: its own and those of the clusters its
   * logs were replayed from), sent after welcome: the secondary opens the payloads with them for
   * its services' projections, as Vault's secondaries share the primary's keyring. Only inside
   * this PSK-authenticated, encrypted connection.
   */
  stamped({ t: z.literal('keyring'), keyrings: z.array(z.string()) }),
  /**
   * The secondary's position in `source` is not in the primary's log (the secondary wrote on its
   * own, followed another primary, or is ahead): it clears that log and connects again from 0.
   */
  stamped({ t: z.literal('resync'), source: z.string() }),
  stamped({
    t: z.literal('batch'),
    source: z.string(),
    events: z.array(wireEventSchema),
    /** what the rows need beyond the log (kv's data keys), barrier-encrypted as stored */
    attachments: z.array(replicaAttachmentSchema).optional(),
  }),
  /** a forwarding hello was accepted: the secondary may send its `forward` frames */
  stamped({ t: z.literal('forwarding'), protocol: z.number().int().positive() }),
  /** the primary's answer to the forwarded write `id`: its engine's answer and index, or its error */
  stamped({
    t: z.literal('forwarded'),
    id: z.number().int().nonnegative(),
    result: z.union([
      z.object({ ok: forwardedAnswerSchema }),
      z.object({
        error: z.object({
          code: z.enum(ERROR_CODES),
          message: z.string(),
          data: z.record(z.string(), z.unknown()).nullable().optional(),
          warnings: z.array(z.string()).optional(),
        }),
      }),
    ]),
  }),
  stamped({
    t: z.literal('heartbeat'),
    heads: z.array(headSchema),
    at: z.string(),
    /** performance: the mounts and namespaces this secondary does not receive */
    filtered: z.object({ mounts: z.array(z.string()), namespaces: z.array(z.string()) }).optional(),
  }),
]);
export type ServerFrame = z.infer<typeof serverFrameSchema>;
/** A server frame before the sender stamps its epoch. */
export type UnstampedFrame = ServerFrame extends infer F
  ? F extends unknown
    ? Omit<F, 'epoch'>
    : never
  : never;

/** Splits a socket's data into lines and parses each with `schema`. */
export function frameReader<T>(schema: z.ZodType<T>, onFrame: (frame: T) => void, onBad: (e: Error) => void) {
  let buffered = '';
  return (chunk: Buffer | string): void => {
    buffered += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line === '') continue;
      let parsed: T;
      try {
        parsed = schema.parse(JSON.parse(line));
      } catch (error) {
        onBad(error instanceof Error ? error : new Error('bad frame'));
        return;
      }
      onFrame(parsed);
    }
  };
}

export const frame = (f: ClientFrame | ServerFrame): string => `${JSON.stringify(f)}\n`;

/**
 * The write-forwarding protocol: 1 was one write in the hello and one connection per write; 2 is
 * a pooled connection carrying `forward` frames matched to their `forwarded` answers by id. A
 * primary refuses a hello of another version with a reason (it never streams to it), and a
 * secondary that gets `welcome` instead of `forwarding` is talking to a primary that predates 2.
 */
export const FORWARDING_PROTOCOL = 2;

/** TLS 1.2 PSK with an ephemeral ECDH exchange (forward secrecy), then plain PSK. */
export const PSK_CIPHERS = 'ECDHE-PSK-CHACHA20-POLY1305:ECDHE-PSK-AES256-CBC-SHA384:PSK-AES256-GCM-SHA384';
