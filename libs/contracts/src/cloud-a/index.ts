// Route table and contracts of the cloud-a engine (import as @coffer/contracts/cloud-a).
export * from './cloud-a.routes';
export * from './cloud-a.schemas';
