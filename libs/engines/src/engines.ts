import { PLANNED_MOUNT_TYPES } from '@coffer/contracts';
import { cloudCredsEngine } from '@coffer/cloud-creds';
import { coreSysEngine } from '@coffer/core-sys';
import { directoryEngine } from '@coffer/directory';
import { kvEngine } from '@coffer/kv';
import { oidcEngine } from '@coffer/oidc';
import { pkiEngine } from '@coffer/pki';
import { replicationEngine } from '@coffer/replication';
import { sshEngine } from '@coffer/ssh';
import {
  mountCatalogueOf,
  routeTableResolver,
  runClusterService,
  type EngineDescriptor,
} from '@coffer/service-host';

/**
 * Every engine service of Coffer, core-sys (the platform) first. Adding an engine is one line
 * here: dev mode, the cluster apps and launcher, the gateway's routing, the mount catalogue,
 * bootstrap readiness and deploy/k8s all derive from this list.
 */
export const ENGINES: readonly EngineDescriptor[] = [
  coreSysEngine,
  kvEngine,
  pkiEngine,
  sshEngine,
  oidcEngine,
  directoryEngine,
  cloudCredsEngine,
  replicationEngine,
];

/** The engine named `name`, or undefined. */
export function engineNamed(name: string): EngineDescriptor | undefined {
  return ENGINES.find((engine) => engine.name === name);
}

/** The gateway's route table for a mount, from the mount types every engine declares. */
export const routeTableFor = routeTableResolver(ENGINES);

/** What sys/mounts and sys/auth may enable: the engines' secret and auth types, and the planned ones. */
export const MOUNT_CATALOGUE = mountCatalogueOf(ENGINES, PLANNED_MOUNT_TYPES);

/** The service serving a mount type, for the gateway's "no replica" error. */
export function serviceForMountType(type: string): string | undefined {
  return MOUNT_CATALOGUE.get(type)?.service;
}

/** One cluster-mode replica of an engine of the list (`apps/<name>/src/main.ts`). */
export function runEngine(engine: EngineDescriptor): Promise<void> {
  return runClusterService(engine, { mountCatalogue: MOUNT_CATALOGUE });
}
