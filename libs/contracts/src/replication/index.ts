// Route table and contracts of the replication service (sys/replication/* inside sys/).
export * from './replication-fields.schema';
export * from './replication.routes';
export * from './replica-apply.contracts';
export * from './replication-modes.contracts';
export * from './replication-forward.contracts';
export * from './replica-fold.contracts';
export * from './replicated-services';
export * from './replica-open.contracts';
