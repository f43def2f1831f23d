export { pkiEngine } from './pki.engine';
export { PkiModule } from './pki.module';
export { PKI_SCHEMA, type PkiModuleOptions } from './pki.di';
export { pkiMigrations } from './migrations';
