import { matchRoute, type RouteDef, type RouteTable } from '@coffer/contracts';
import {
  defineEngine,
  mountCatalogueOf,
  routeTableResolver,
  type EngineDescriptor,
} from './engine-descriptor';

const table = (engine: string): RouteTable => ({ engine, service: 'x', help: '', routes: [] });
const v1 = table('x-v1');
const v2 = table('x-v2');
const other = table('other');

const engine = (name: string, mountTypes: EngineDescriptor['mountTypes']): EngineDescriptor =>
  defineEngine({
    name,
    summary: name,
    schema: name,
    migrations: {},
    cipher: 'keyring',
    module: () => ({ module: class {} }),
    mountTypes,
    devMounts: [],
    readinessPath: `${name}/probe`,
    deploy: { replicas: 1 },
  });

describe('routeTableResolver', () => {
  const resolve = routeTableResolver([
    engine('x', { x: { kind: 'secret', routes: (options) => (options['version'] === '2' ? v2 : v1) } }),
    engine('o', { other: { kind: 'auth', routes: () => other } }),
  ]);

  it("picks the table from the mount's type and options", () => {
    expect(resolve({ type: 'x', options: {} })).toBe(v1);
    expect(resolve({ type: 'x', options: { version: '2' } })).toBe(v2);
    expect(resolve({ type: 'other', options: {} })).toBe(other);
  });

  it('answers undefined for a type no engine serves (the gateway answers 503)', () => {
    expect(resolve({ type: 'pki', options: {} })).toBeUndefined();
  });

  it('refuses two engines serving one mount type', () => {
    expect(() =>
      routeTableResolver([
        engine('a', { t: { kind: 'secret', routes: () => v1 } }),
        engine('b', { t: { kind: 'secret', routes: () => v2 } }),
      ]),
    ).toThrow('mount type "t" is served by two engines');
  });
});

describe('routeTableResolver with route extensions', () => {
  const route = (pattern: string): RouteDef => ({ pattern, synopsis: pattern, operations: {} });
  const owner: RouteTable = { engine: 'identity', service: 'core', help: 'owner', routes: [route('entity')] };
  const added: RouteTable = {
    engine: 'identity',
    service: 'oidc',
    help: 'added',
    routes: [route('oidc/key')],
  };
  const withExtension = (extensions: EngineDescriptor['routeExtensions']) =>
    routeTableResolver([
      engine('core', { identity: { kind: 'builtin', routes: () => owner } }),
      { ...engine('oidc', {}), routeExtensions: extensions },
    ]);

  it("merges another engine's routes into the owner's table, each naming its service", () => {
    const resolve = withExtension({ identity: () => added });
    const table = resolve({ type: 'identity', options: {} });
    expect(table?.service).toBe('core');
    expect(table?.routes.map((r) => [r.pattern, r.service])).toEqual([
      ['entity', undefined],
      ['oidc/key', 'oidc'],
    ]);
    expect(table?.help).toBe('owner\n\nadded');
    // one merged table per owner table (matchRoute caches compiled patterns per table)
    expect(resolve({ type: 'identity', options: {} })).toBe(table);
    expect(matchRoute(table!, 'oidc/key')?.route.service).toBe('oidc');
  });

  it('refuses an extension of a type nobody serves, and a pattern declared twice', () => {
    expect(() => withExtension({ nothing: () => added })).toThrow(
      'engine "oidc" extends mount type "nothing", which no engine serves',
    );
    const resolve = withExtension({ identity: () => ({ ...added, routes: [route('entity')] }) });
    expect(() => resolve({ type: 'identity', options: {} })).toThrow(
      'route "entity" of mount type "identity" is declared twice',
    );
  });
});

describe('mountCatalogueOf', () => {
  const platform = engine('platform', {
    system: { kind: 'builtin', routes: () => other },
    login: { kind: 'auth', routes: () => other },
  });
  const store = engine('store', { store: { kind: 'secret', routes: () => v1 } });

  it("lists every engine's secret and auth types with the engine serving them, not its built-in ones", () => {
    expect([...mountCatalogueOf([platform, store], []).values()]).toEqual([
      { type: 'login', kind: 'auth', service: 'platform' },
      { type: 'store', kind: 'secret', service: 'store' },
    ]);
  });

  it('adds the planned types no engine declares; a declaring engine wins over its planned entry', () => {
    const catalogue = mountCatalogueOf(
      [platform, store],
      [
        { type: 'later', kind: 'secret', service: 'later-svc' },
        { type: 'store', kind: 'secret', service: 'planned-name' },
        { type: 'system', kind: 'secret', service: 'planned-name' },
      ],
    );
    expect(catalogue.get('later')).toEqual({ type: 'later', kind: 'secret', service: 'later-svc' });
    expect(catalogue.get('store')?.service).toBe('store');
    expect(catalogue.has('system')).toBe(false);
  });

  it('refuses two engines declaring one mount type', () => {
    expect(() =>
      mountCatalogueOf([store, engine('copy', { store: { kind: 'auth', routes: () => v2 } })], []),
    ).toThrow('mount type "store" is served by two engines');
  });
});
