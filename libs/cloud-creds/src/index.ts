export { CloudCredsModule } from './cloud-creds.module';
export { CLOUD_CREDS_SCHEMA } from './cloud-creds.di';
export { CLOUD_CREDS_LOGS, cloudCredsMigrations } from './cloud-creds.parts';
export { cloudCredsEngine } from './cloud-creds.engine';
