import type { Kysely, Transaction } from 'kysely';
import type { ServiceRuntime } from './runtime';
import type { AnyTrx } from './event-store-types';

/**
 * A service's typed view of the shared pool. ServiceRuntime.db is untyped because every service
 * shares it; this is the one place a service casts it to its database type (e.g. KvDatabase),
 * scoped to the service's schema. Provide one per service, built from its runtime.
 */
export class ServiceDb<DB> {
  constructor(private readonly runtime: Pick<ServiceRuntime, 'db' | 'schema'>) {}

  get schema(): string {
    return this.runtime.schema;
  }

  /** The pool, or `trx` (a projection's transaction), querying the service's schema. */
  of(trx?: Transaction<DB> | AnyTrx): Kysely<DB> {
    return ((trx ?? this.runtime.db) as Kysely<DB>).withSchema(this.runtime.schema);
  }

  /** The pool without the schema plugin, for statements that name the schema themselves. */
  get pool(): Kysely<DB> {
    return this.runtime.db as Kysely<DB>;
  }
}
