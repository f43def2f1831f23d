// Route table and contracts of the cloud-b engine (import as @coffer/contracts/cloud-b).
export * from './cloud-b.routes';
export * from './cloud-b.schemas';
