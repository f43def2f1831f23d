import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PLANNED_MOUNT_TYPES, tableContracts } from '@coffer/contracts';
import { ENGINES, MOUNT_CATALOGUE, routeTableFor, serviceForMountType } from '@coffer/engines';
import { serviceOf } from '@coffer/transport';
import { ENGINE_MANIFEST_FILE, renderEngineManifests } from './k8s-manifests';

const ROOT = path.join(__dirname, '..', '..');
const OPTION_SETS: Record<string, string>[] = [{}, { version: '1' }, { version: '2' }];

// The engine list is the one place an engine is declared: everything else is derived from it, so
// what cannot be derived (the app folder, the checked-in manifests) is checked here.
describe('ENGINES', () => {
  it('starts with core-sys, the only engine owning the barrier', () => {
    expect(ENGINES[0]?.name).toBe('core-sys');
    expect(ENGINES.filter((e) => e.cipher === 'barrier').map((e) => e.name)).toEqual(['core-sys']);
  });

  it('gives every engine a unique name and Postgres schema', () => {
    const names = ENGINES.map((e) => e.name);
    const schemas = ENGINES.map((e) => e.schema);
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(schemas).size).toBe(schemas.length);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9-]*$/);
  });

  it.each(ENGINES.map((e) => [e.name, e] as const))(
    '%s has a cluster-mode app at apps/<name>/src/main.ts',
    (name) => {
      const entry = path.join(ROOT, 'apps', name, 'src', 'main.ts');
      expect(existsSync(entry)).toBe(true);
      expect(readFileSync(entry, 'utf8')).toContain('runEngine(');
    },
  );

  it.each(ENGINES.map((e) => [e.name, e] as const))(
    '%s serves its mount types with route tables of its own service, catalogued unless built in',
    (name, engine) => {
      const types = Object.entries(engine.mountTypes);
      // an engine serves a mount type of its own, or routes inside another engine's (route extensions)
      expect(types.length + Object.keys(engine.routeExtensions ?? {}).length).toBeGreaterThan(0);
      for (const [type, { kind }] of types) {
        if (kind === 'builtin') expect(MOUNT_CATALOGUE.has(type)).toBe(false);
        else expect(MOUNT_CATALOGUE.get(type)).toEqual({ type, kind, service: name });
        for (const options of OPTION_SETS) {
          const table = routeTableFor({ type, options });
          expect(table?.service).toBe(name);
          expect(tableContracts(table!).length).toBeGreaterThan(0);
        }
      }
    },
  );

  it.each(ENGINES.filter((e) => e.routeExtensions).map((e) => [e.name, e] as const))(
    '%s serves its route extensions inside the owner table, each route naming it',
    (name, engine) => {
      for (const type of Object.keys(engine.routeExtensions ?? {})) {
        const table = routeTableFor({ type, options: {} });
        const own = table?.routes.filter((route) => route.service === name) ?? [];
        expect(own.length).toBeGreaterThan(0);
        for (const route of own) {
          const operations = Object.values(route.operations);
          expect(operations.length).toBeGreaterThan(0);
          // the transport names the service of a subject in "no running replica" and time-outs
          for (const op of operations) expect(serviceOf(op.contract.subject)).toBe(name);
        }
      }
    },
  );

  it('lets no two engines serve one mount type', () => {
    const types = ENGINES.flatMap((e) => Object.keys(e.mountTypes));
    expect(new Set(types).size).toBe(types.length);
  });

  it('mounts in dev mode only secrets engine types the engine itself serves', () => {
    for (const engine of ENGINES) {
      for (const mount of engine.devMounts) {
        expect(engine.mountTypes[mount.type]?.kind).toBe('secret');
        expect(mount.path).not.toMatch(/^\/|\/$/);
      }
    }
  });

  it('keeps the planned mount types mountable and names their future service (503 until it lands)', () => {
    for (const planned of PLANNED_MOUNT_TYPES) {
      const declared = ENGINES.some((e) => planned.type in e.mountTypes);
      if (!declared) expect(MOUNT_CATALOGUE.get(planned.type)).toEqual(planned);
      expect(serviceForMountType(planned.type)).toBeDefined();
    }
    expect([...MOUNT_CATALOGUE.values()].filter((e) => e.kind === 'auth').map((e) => e.type)).toEqual([
      'userpass',
      'approle',
    ]);
    expect(serviceForMountType('pki')).toBe('pki');
    expect(serviceForMountType('cloud-b')).toBe('cloud-creds');
  });

  it('names a readiness path under /v1 for every engine', () => {
    for (const engine of ENGINES) expect(engine.readinessPath).toMatch(/^[a-z][^?#]*$/);
  });
});

describe(ENGINE_MANIFEST_FILE, () => {
  it('is the render of ENGINES (run `npm run deploy:render` after changing the list)', () => {
    const checkedIn = readFileSync(path.join(ROOT, ENGINE_MANIFEST_FILE), 'utf8');
    expect(checkedIn).toBe(renderEngineManifests(ENGINES));
  });

  it('has a Deployment for every engine running its app, and is listed in the kustomization', () => {
    const text = renderEngineManifests(ENGINES);
    for (const { name } of ENGINES) {
      expect(text).toContain(`  name: coffer-${name}\n`);
      expect(text).toContain(`args: ['apps/${name}/src/main.ts', '-config', '/etc/coffer/cluster.hcl']`);
    }
    const kustomization = readFileSync(path.join(ROOT, 'deploy', 'k8s', 'kustomization.yaml'), 'utf8');
    expect(kustomization).toContain(`  - ${path.basename(ENGINE_MANIFEST_FILE)}`);
  });

  it('autoscales only engines that declare it', () => {
    const text = renderEngineManifests(ENGINES);
    const autoscaled = ENGINES.filter((e) => e.deploy.autoscale).length;
    expect(text.split('kind: HorizontalPodAutoscaler').length - 1).toBe(autoscaled);
  });
});
