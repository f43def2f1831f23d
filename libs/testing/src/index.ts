export * from './env';
export * from './names';
export * from './wait';
export * from './net';
export * from './database';
export * from './process';
