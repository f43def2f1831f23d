export * from './test-env';
export * from './names';
export * from './wait';
export * from './net';
export * from './database';
export * from './managed-process';
export * from './raw-socket';
export * from './slapd';
