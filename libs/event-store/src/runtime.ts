import type { Cipher } from '@coffer/barrier';
import type { Transport } from '@coffer/transport';
import type { AnyDb } from './event-store-types';

/** Everything a feature service needs from its host app (cluster app or dev composition). */
export interface ServiceRuntime {
  /** shared pool (pg) or the embedded PGlite instance */
  db: AnyDb;
  /** the service's own Postgres schema: event log + read model + migration history */
  schema: string;
  transport: Transport;
  /** the barrier: core-sys holds the real Barrier; engines get one from KeyringClient */
  cipher: Cipher;
  clock: () => Date;
}
