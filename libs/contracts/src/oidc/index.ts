// Route table and contracts of the oidc service (the OIDC provider under identity/).
export * from './oidc-fields.schema';
export * from './oidc.routes';
