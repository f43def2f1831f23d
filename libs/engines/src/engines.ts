import { coreSysEngine } from '@coffer/core-sys';
import { kvEngine } from '@coffer/kv';
import { routeTableResolver, type EngineDescriptor } from '@coffer/service-host';

/**
 * Every engine service of Coffer, core-sys (the platform) first. Adding an engine is one line
 * here: dev mode, the cluster apps and launcher, the gateway's routing, bootstrap readiness and
 * deploy/k8s all derive from this list.
 */
export const ENGINES: readonly EngineDescriptor[] = [coreSysEngine, kvEngine];

/** The engine named `name`, or undefined. */
export function engineNamed(name: string): EngineDescriptor | undefined {
  return ENGINES.find((engine) => engine.name === name);
}

/** The gateway's route table for a mount, from the mount types every engine declares. */
export const routeTableFor = routeTableResolver(ENGINES);
