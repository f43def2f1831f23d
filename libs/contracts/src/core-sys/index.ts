export * from './system.routes';
export * from './system-request.schema';
export * from './token.routes';
export * from './userpass.routes';
export * from './identity.routes';
export * from './wrapping.routes';
export * from './core-sys-raw.schema';
export type {
  AliasData,
  AliasListData,
  EntityData,
  EntityListData,
  MountInfoData,
  MountListingData,
  MountTuneData,
  TokenLookupData,
  UserpassUserData,
} from './core-sys-data.schema';
