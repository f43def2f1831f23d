import type { MountInfo } from './engine';
import type { RouteTable } from './routes';
import { cubbyholeRoutes, kvV1Routes, kvV2Routes } from './kv';
import { identityRoutes, systemRoutes, tokenRoutes, userpassRoutes } from './core-sys';

/**
 * Mount types that can be enabled, with the service that serves them. Types without a route
 * table yet (pki, ssh, ...) can be mounted; requests to them answer 503 until their service lands.
 */
export const SECRET_ENGINE_TYPES = [
  'kv',
  'cubbyhole',
  'ssh',
  'pki',
  'cloud-a',
  'cloud-b',
  'directory',
] as const;
export const AUTH_METHOD_TYPES = ['userpass'] as const;
export const SERVICE_FOR_TYPE: Record<string, string> = {
  kv: 'kv',
  cubbyhole: 'kv',
  ssh: 'ssh',
  pki: 'pki',
  'cloud-a': 'cloud-creds',
  'cloud-b': 'cloud-creds',
  directory: 'directory',
  system: 'core-sys',
  token: 'core-sys',
  identity: 'core-sys',
  userpass: 'core-sys',
};

export const ALL_ROUTE_TABLES: RouteTable[] = [
  kvV1Routes,
  kvV2Routes,
  cubbyholeRoutes,
  systemRoutes,
  tokenRoutes,
  userpassRoutes,
  identityRoutes,
];

/** The route table serving a mount, or undefined when that engine has no service yet. */
export function tableForMount(mount: Pick<MountInfo, 'type' | 'options'>): RouteTable | undefined {
  switch (mount.type) {
    case 'kv':
      return mount.options['version'] === '2' ? kvV2Routes : kvV1Routes;
    case 'cubbyhole':
      return cubbyholeRoutes;
    case 'system':
      return systemRoutes;
    case 'token':
      return tokenRoutes;
    case 'userpass':
      return userpassRoutes;
    case 'identity':
      return identityRoutes;
    default:
      return undefined;
  }
}
