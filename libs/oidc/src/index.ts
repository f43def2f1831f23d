export { oidcEngine } from './oidc.engine';
export { OidcModule } from './oidc.module';
export { OIDC_SCHEMA, type OidcModuleOptions } from './oidc.di';
export { oidcMigrations } from './migrations';
export { OIDC_LOGS } from './oidc.events';
