export * from './core-sys.module';
export * from './core-sys.di';
export * from './migrations';
export { SealService } from './seal/seal.service';
export { DevBootstrapService } from './seal/dev-bootstrap.service';
export { MountsService } from './mounts/mounts.service';
export { TokenService } from './tokens/token.service';
export { TokenRevocationService } from './tokens/token-revocation.service';
export { IdentityService } from './identity/identity.service';
export { TOKEN_SWEEP_SETTINGS, DEFAULT_TOKEN_SWEEP_SETTINGS } from './tokens/token-sweeper';
export { coreSysEngine } from './core-sys.engine';
export { NamespaceService } from './namespaces/namespace.service';
export {
  createCoreSysEventStore,
  createHistoryQueries,
  createMerkleIndex,
  type HistoryAccessService,
  type HistoryStateService,
  type MerkleIndex,
} from './history';
