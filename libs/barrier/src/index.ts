export * from './barrier-types';
export * from './shamir';
export * from './keyring';
export * from './barrier';
export * from './keyring-transport';
export * from './keyring-client';
export * from './random-base62';
