import { otlpTracesUrl } from './otlp';

describe('otlpTracesUrl', () => {
  it('adds the standard traces path to a bare collector address', () => {
    expect(otlpTracesUrl('http://collector:4318')).toBe('http://collector:4318/v1/traces');
    expect(otlpTracesUrl('https://collector.example/')).toBe('https://collector.example/v1/traces');
  });

  it('keeps an explicit path', () => {
    expect(otlpTracesUrl('http://collector:4318/custom/traces')).toBe('http://collector:4318/custom/traces');
  });

  it('rejects what is not an http(s) URL', () => {
    expect(() => otlpTracesUrl('collector:4318')).toThrow('must be an http(s) URL');
    expect(() => otlpTracesUrl('not a url')).toThrow('invalid OTLP endpoint "not a url"');
  });
});
