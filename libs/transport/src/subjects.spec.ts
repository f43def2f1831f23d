import { SubjectTable, isValidSubject, prefixSubject, serviceOf } from './subjects';

describe('subjects', () => {
  it('accepts dot-separated plain tokens only', () => {
    expect(isValidSubject('kv.v2.data.read')).toBe(true);
    expect(isValidSubject('core-sys.seal_state')).toBe(true);
    for (const bad of ['', 'kv..read', 'kv.*', 'kv.>', 'kv read', '.kv', 'kv.']) {
      expect(isValidSubject(bad)).toBe(false);
    }
  });

  it('names the service by the first segment', () => {
    expect(serviceOf('kv.v2.data.read')).toBe('kv');
    expect(serviceOf('core.token.resolve')).toBe('core-sys');
    expect(serviceOf('pki')).toBe('pki');
  });

  it('prefixes only with a non-empty prefix', () => {
    expect(prefixSubject('coffer', 'kv.read')).toBe('coffer.kv.read');
    expect(prefixSubject('', 'kv.read')).toBe('kv.read');
  });

  it('computes and caches everything the hot path needs', () => {
    const table = new SubjectTable('t1.run');
    const info = table.get('kv.v2.data.read');
    expect(info).toEqual({
      subject: 'kv.v2.data.read',
      wire: 't1.run.kv.v2.data.read',
      service: 'kv',
      clientSpanName: 'send kv.v2.data.read',
      clientAttributes: { 'messaging.destination.name': 'kv.v2.data.read', 'peer.service': 'kv' },
    });
    expect(table.get('kv.v2.data.read')).toBe(info);
  });

  it('rejects invalid prefixes and subjects', () => {
    expect(() => new SubjectTable('bad prefix')).toThrow('invalid transport subject prefix');
    expect(() => new SubjectTable('a').get('kv.*')).toThrow('invalid transport subject "kv.*"');
  });
});
