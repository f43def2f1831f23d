import { AggregateWriter } from '@coffer/event-store';
import type { WRAPPING_EVENT_TYPES } from './wrapping.events';

/**
 * Wrapped responses have no read model: a response is read back from its own stream (decrypted
 * by the barrier), so it is never stored in clear. Appends project nothing.
 */
export abstract class WrappingEventLog extends AggregateWriter<
  typeof WRAPPING_EVENT_TYPES,
  undefined,
  string
> {}
