import { matchRoute, tableContracts } from '../routes';
import { cubbyhole, cubbyholeRoutes } from './cubbyhole.routes';
import { kvV1, kvV1Routes } from './kv-v1.routes';
import { kvV2, kvV2Routes } from './kv-v2.routes';

const subjectFor = (table: typeof kvV2Routes, path: string, op: 'read' | 'update' | 'list' | 'patch') =>
  matchRoute(table, path)?.route.operations[op]?.contract.subject;

describe('kv route tables', () => {
  it('routes kv v2 API paths with their captures', () => {
    expect(matchRoute(kvV2Routes, 'data/a/b')?.params).toEqual({ path: 'a/b' });
    expect(subjectFor(kvV2Routes, 'data/a/b', 'read')).toBe(kvV2.dataRead.subject);
    expect(subjectFor(kvV2Routes, 'data/a', 'patch')).toBe(kvV2.dataPatch.subject);
    expect(matchRoute(kvV2Routes, 'data/a')?.route.operations.patch?.mergePatch).toBe(true);
    expect(subjectFor(kvV2Routes, 'config', 'update')).toBe(kvV2.configWrite.subject);
    expect(subjectFor(kvV2Routes, 'subkeys/x', 'read')).toBe(kvV2.subkeysRead.subject);
    expect(subjectFor(kvV2Routes, 'destroy/x', 'update')).toBe(kvV2.versionsDestroy.subject);
    expect(subjectFor(kvV2Routes, 'metadata/', 'list')).toBe(kvV2.metadataList.subject);
    expect(matchRoute(kvV2Routes, 'metadata/')?.params).toEqual({ path: '' });
    expect(matchRoute(kvV2Routes, 'metadata/a/b/')?.params).toEqual({ path: 'a/b/' });
  });

  it('sends every other kv v2 path to the invalid-path handler', () => {
    for (const p of ['foo', 'data', 'secret/x', '']) {
      expect(subjectFor(kvV2Routes, p, 'read')).toBe(kvV2.invalidPath.subject);
    }
    expect(matchRoute(kvV2Routes, 'subkeys/x')?.route.operations.list).toBeUndefined();
  });

  it('runs existence checks where writes can create', () => {
    expect(matchRoute(kvV2Routes, 'data/x')?.route.existenceCheck).toBe(kvV2.dataExists);
    expect(matchRoute(kvV2Routes, 'metadata/x')?.route.existenceCheck).toBe(kvV2.metadataExists);
    expect(matchRoute(kvV1Routes, 'x')?.route.existenceCheck).toBe(kvV1.exists);
    expect(matchRoute(cubbyholeRoutes, 'x')?.route.existenceCheck).toBe(cubbyhole.exists);
  });

  it('serves kv v1 and cubbyhole on every path, root included', () => {
    expect(matchRoute(kvV1Routes, '')?.params).toEqual({ path: '' });
    expect(matchRoute(kvV1Routes, 'a/b')?.route.operations.create?.contract).toBe(kvV1.write);
    expect(matchRoute(cubbyholeRoutes, 'a/')?.route.operations.list?.contract).toBe(cubbyhole.list);
  });

  it('declares distinct subjects, all served by the kv service', () => {
    const all = [kvV1Routes, kvV2Routes, cubbyholeRoutes].flatMap(tableContracts).map((c) => c.subject);
    expect(new Set(all).size).toBe(all.length);
    for (const t of [kvV1Routes, kvV2Routes, cubbyholeRoutes]) expect(t.service).toBe('kv');
  });

  it('answers only what each response schema declares, the secret itself untouched', () => {
    const metadata = {
      created_time: 't',
      custom_metadata: JSON.parse('{"__proto__":"m"}') as Record<string, string>,
      deletion_time: '',
      destroyed: false,
      version: 1,
      internal_key_id: 'never leaves',
    };
    const secret = JSON.parse('{"__proto__":"x","constructor":"y"}') as Record<string, unknown>;
    const out = kvV2.dataRead.response.parse({ data: { data: secret, metadata, stray: 1 } });
    expect(JSON.stringify(out.data)).toBe(
      '{"data":{"__proto__":"x","constructor":"y"},"metadata":{"created_time":"t","custom_metadata":{"__proto__":"m"},"deletion_time":"","destroyed":false,"version":1}}',
    );
    expect(JSON.stringify(kvV1.read.response.parse({ data: secret }).data)).toBe(JSON.stringify(secret));
    expect(kvV2.metadataList.response.parse({ data: { keys: ['a'], total: 1 } }).data).toEqual({
      keys: ['a'],
    });
  });
});
