// Route table and contracts of the SSH engine (import as @coffer/contracts/ssh).
export * from './ssh.schemas';
export * from './ssh.routes';
