import {
  EventRegistry,
  EventStore,
  type AppendOptions,
  type AppendResult,
  type NewEvent,
  type ServiceAggregate,
  type ServiceRuntime,
} from '@coffer/event-store';
import type { KvReadFence } from './read-fence';

/**
 * The kv service's event store (createServiceEventStore's, plus one duty): it tells the read
 * fence when each append starts and settles, which is how a sole writer's fence knows that
 * nothing was committed since its last check (see KvReadFence). Its history reads merge the
 * primary's rows kept in `kv_replica` (EventStoreOptions.replicaLog), as the engines' stores do.
 */
export class KvEventStore extends EventStore {
  private constructor(
    runtime: Pick<ServiceRuntime, 'db' | 'schema' | 'cipher' | 'clock' | 'transport'>,
    logs: readonly ServiceAggregate[],
    private readonly fence: KvReadFence,
  ) {
    super({
      db: runtime.db,
      schema: runtime.schema,
      cipher: runtime.cipher,
      clock: runtime.clock,
      registry: new EventRegistry(logs.flatMap((l) => l.eventTypes)),
      replicaLog: { transport: runtime.transport },
    });
  }

  static create(
    runtime: Pick<ServiceRuntime, 'db' | 'schema' | 'cipher' | 'clock' | 'transport'>,
    logs: readonly ServiceAggregate[],
    fence: KvReadFence,
  ): KvEventStore {
    return new KvEventStore(runtime, logs, fence);
  }

  override async append<T = undefined>(
    stream: string,
    events: NewEvent[],
    opts: AppendOptions<T>,
  ): Promise<AppendResult<T>> {
    this.fence.appendStartedOrSettled();
    try {
      return await super.append(stream, events, opts);
    } finally {
      this.fence.appendStartedOrSettled();
    }
  }
}
