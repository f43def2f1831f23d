// Route tables and contracts of the kv service: kv v1, kv v2 and cubbyhole.
export * from './common';
export * from './kv-v2.schema';
export * from './kv-v1.routes';
export * from './kv-v2.routes';
export * from './cubbyhole.routes';
