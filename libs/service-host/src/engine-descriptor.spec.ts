import type { RouteTable } from '@coffer/contracts';
import { defineEngine, routeTableResolver, type EngineDescriptor } from './engine-descriptor';

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
    engine('x', { x: (options) => (options['version'] === '2' ? v2 : v1) }),
    engine('o', { other: () => other }),
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
    expect(() => routeTableResolver([engine('a', { t: () => v1 }), engine('b', { t: () => v2 })])).toThrow(
      'mount type "t" is served by two engines',
    );
  });
});
