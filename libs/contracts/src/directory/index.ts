// Route table and contracts of the directory engine (import as @coffer/contracts/directory).
export * from './directory.schemas';
export * from './directory.routes';
