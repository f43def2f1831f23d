import { encodeIndexState, indexHeaders, indexStateOf } from './consistency-index';

describe('the consistency index (X-Service-Index)', () => {
  it('round-trips through either header name and answers both', () => {
    const value = encodeIndexState({ source: 'kv', wal: 42 });
    expect(indexStateOf({ 'x-service-index': value })).toEqual({ source: 'kv', wal: 42 });
    expect(indexStateOf({ 'x-vault-index': value })).toEqual({ source: 'kv', wal: 42 });
    expect(indexHeaders({ source: 'kv', wal: 42 })).toEqual({
      'X-Service-Index': value,
      'X-Vault-Index': value,
    });
    expect(indexStateOf({})).toBeUndefined();
  });

  it('refuses a value it did not issue (400)', () => {
    for (const bad of [
      'nope',
      Buffer.from('{"s":"kv","w":-1}').toString('base64url'),
      Buffer.from('[]').toString('base64url'),
    ])
      expect(() => indexStateOf({ 'x-service-index': bad })).toThrow('invalid x-service-index header');
  });
});
