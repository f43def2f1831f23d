import { DomainError } from '@coffer/contracts';
import { z } from 'zod';
import { formatIssues, fromWireError, noReplicaError, timeoutError, toDomainError } from './errors';

const logger = () => {
  const lines: string[] = [];
  return {
    lines,
    error: (m: string, s?: string) => void lines.push(`${m}|${s ?? ''}`),
    warn: (m: string) => void lines.push(m),
  };
};

describe('transport errors', () => {
  it('formats zod issues as "path: message" lines', () => {
    const schema = z.object({ name: z.string(), tags: z.array(z.string()), n: z.number() });
    const result = schema.safeParse({ name: 1, tags: ['a', 2] });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(formatIssues(result.error)).toBe(
      'name: Invalid input: expected string, received number; tags.1: Invalid input: expected string, received number; n: Invalid input: expected number, received undefined',
    );
    const root = z.string().safeParse(3);
    if (!root.success)
      expect(formatIssues(root.error)).toBe('Invalid input: expected string, received number');
  });

  it('builds the service_unavailable errors', () => {
    expect(noReplicaError('kv').toBody()).toEqual({
      code: 'service_unavailable',
      message: 'no running replica of the "kv" service',
    });
    expect(timeoutError('kv', 250).toBody()).toEqual({
      code: 'service_unavailable',
      message: 'the "kv" service did not answer within 250 ms',
    });
  });

  it('keeps DomainError and logs nothing for it', () => {
    const log = logger();
    const error = new DomainError('sealed', 'Vault is sealed');
    expect(toDomainError(error, 'kv.read', log)).toBe(error);
    expect(log.lines).toEqual([]);
  });

  it('hides any other error behind internal and logs message and stack', () => {
    const log = logger();
    const mapped = toDomainError(new Error('db down'), 'kv.read', log);
    expect(mapped.toBody()).toEqual({ code: 'internal', message: 'internal error' });
    expect(log.lines[0]).toMatch(/^handler for "kv.read" failed: db down\|Error: db down\n/);
    toDomainError('a string', 'kv.read', log);
    expect(log.lines[1]).toBe('handler for "kv.read" failed with a non-Error value (string)|');
  });

  it('rebuilds a DomainError from its wire body', () => {
    const error = fromWireError({ code: 'not_found', message: '', data: { a: 1 }, warnings: ['w'] });
    expect(error).toBeInstanceOf(DomainError);
    expect(error.toBody()).toEqual({ code: 'not_found', message: '', data: { a: 1 }, warnings: ['w'] });
    expect(fromWireError({ code: 'not_found', message: '', data: null }).data).toBeNull();
  });

  it('treats malformed wire bodies as internal', () => {
    for (const body of [
      null,
      'x',
      { code: 'teapot', message: 'x' },
      { code: 'not_found' },
      { message: 'm' },
    ]) {
      expect(fromWireError(body).toBody()).toEqual({ code: 'internal', message: 'internal error' });
    }
    const loose = fromWireError({ code: 'sealed', message: 'm', data: [1], warnings: [1] });
    expect(loose.toBody()).toEqual({ code: 'sealed', message: 'm' });
  });
});
