import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { AUTH_METHOD_TYPES, SECRET_ENGINE_TYPES, SERVICE_FOR_TYPE, tableContracts } from '@coffer/contracts';
import { ENGINES, routeTableFor } from '@coffer/engines';
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
      expect(readFileSync(entry, 'utf8')).toContain('runClusterService(');
    },
  );

  it.each(ENGINES.map((e) => [e.name, e] as const))(
    '%s serves its mount types with route tables of its own service, known to the mount-type catalogue',
    (name, engine) => {
      const types = Object.keys(engine.mountTypes);
      expect(types.length).toBeGreaterThan(0);
      for (const type of types) {
        expect(SERVICE_FOR_TYPE[type]).toBe(name);
        for (const options of OPTION_SETS) {
          const table = routeTableFor({ type, options });
          expect(table?.service).toBe(name);
          expect(tableContracts(table!).length).toBeGreaterThan(0);
        }
      }
    },
  );

  it('lets no two engines serve one mount type', () => {
    const types = ENGINES.flatMap((e) => Object.keys(e.mountTypes));
    expect(new Set(types).size).toBe(types.length);
  });

  it('mounts in dev mode only secrets engine types the engine itself serves', () => {
    const secretTypes: readonly string[] = SECRET_ENGINE_TYPES;
    for (const engine of ENGINES) {
      for (const mount of engine.devMounts) {
        expect(Object.keys(engine.mountTypes)).toContain(mount.type);
        expect(secretTypes).toContain(mount.type);
        expect(mount.path).not.toMatch(/^\/|\/$/);
      }
    }
    expect(AUTH_METHOD_TYPES.length).toBeGreaterThan(0);
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
