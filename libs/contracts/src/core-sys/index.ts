export * from './system.routes';
export * from './system-request.schema';
export * from './token.routes';
export * from './token-role.schema';
export * from './userpass.routes';
export * from './approle.routes';
export * from './identity.routes';
export * from './lease.routes';
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
export * from './audit.routes';
export * from './identity-group.routes';
export * from './identity-lookup.routes';
export type {
  GroupAliasData,
  GroupAliasListData,
  GroupData,
  GroupListData,
} from './identity-group-data.schema';
export * from './rekey.routes';
export * from './plugin-catalog.routes';
export * from './password-policy.routes';
export * from './sentinel-policy.routes';
export * from './namespace.routes';
export * from './remount.routes';
export * from './history.routes';
