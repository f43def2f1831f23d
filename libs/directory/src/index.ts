export { DirectoryModule } from './directory.module';
export { DIRECTORY_SCHEMA } from './directory.di';
export { directoryMigrations } from './migrations';
export { DIRECTORY_LOGS } from './directory.events';
export { directoryEngine } from './directory.engine';
