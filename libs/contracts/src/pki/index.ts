// Route table and contracts of the pki service.
export * from './pki-request.schema';
export * from './pki-role.schema';
export * from './pki.routes';
