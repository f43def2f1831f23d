export { SshModule } from './ssh.module';
export { SSH_SCHEMA } from './ssh.di';
export { sshMigrations } from './migrations';
export { SSH_LOGS } from './ssh.events';
export { sshEngine } from './ssh.engine';
