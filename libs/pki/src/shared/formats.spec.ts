import { certificateLease } from './formats';

describe('certificateLease', () => {
  const notAfter = new Date('2030-01-01T00:00:00Z');

  it('runs to the certificate notAfter, not renewable, naming the serial', () => {
    expect(certificateLease({ serial: 'aa:bb', notAfter }, notAfter.getTime() - 3_600_500)).toEqual({
      ttl: 3600,
      max_ttl: 3600,
      renewable: false,
      internal: { serial_number: 'aa:bb' },
    });
  });

  it('never grants less than one second', () => {
    expect(certificateLease({ serial: 'aa', notAfter }, notAfter.getTime() + 5000).ttl).toBe(1);
  });
});
