import { withoutQuery } from './span-hygiene';

describe('withoutQuery', () => {
  it('keeps the path of a target or URL, never its query or fragment', () => {
    expect(withoutQuery('/v1/secret/data/a?token=s3cr3t')).toBe('/v1/secret/data/a');
    expect(withoutQuery('http://127.0.0.1:8200/v1/sys/health?standbyok=true#x')).toBe(
      'http://127.0.0.1:8200/v1/sys/health',
    );
    expect(withoutQuery('/v1/secret/data/a')).toBe('/v1/secret/data/a');
  });

  it('drops credentials and parameters from connection strings', () => {
    expect(withoutQuery('postgresql://coffer:pw@db:5432/coffer?sslpassword=x&sslmode=require')).toBe(
      'postgresql://db:5432/coffer',
    );
    expect(withoutQuery('postgresql://db:5432/coffer')).toBe('postgresql://db:5432/coffer');
  });
});
