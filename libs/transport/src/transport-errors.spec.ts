import { DomainError } from '@coffer/contracts';
import { z } from 'zod';
import {
  describeCause,
  formatIssues,
  fromWireError,
  noReplicaError,
  timeoutError,
  toDomainError,
  wasLogged,
  wireErrorBody,
} from './transport-errors';

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
    expect(timeoutError('kv', 250, true).message).toBe(
      'the "kv" service did not answer within 250 ms; the request may have been applied',
    );
  });

  it('keeps DomainError and logs nothing for a 4xx or sealed', () => {
    const log = logger();
    for (const error of [
      new DomainError('sealed', 'Vault is sealed'),
      new DomainError('invalid_request', 'bad'),
      new DomainError('not_found', ''),
    ]) {
      expect(toDomainError(error, 'kv.read', log, 'req-1')).toBe(error);
      expect(wasLogged(error)).toBe(false);
    }
    expect(log.lines).toEqual([]);
  });

  it('hides any other error behind internal and logs request id, subject, code, message and stack', () => {
    const log = logger();
    const mapped = toDomainError(new Error('db down'), 'kv.read', log, 'req-1');
    expect(mapped.toBody()).toEqual({ code: 'internal', message: 'internal error' });
    expect(log.lines[0]).toMatch(
      /^request req-1 to "kv.read" failed: internal: Error: db down\|Error: db down\n/,
    );
    toDomainError('a string', 'kv.read', log);
    expect(log.lines[1]).toBe('request - to "kv.read" failed: internal: a non-Error value (string)|');
  });

  it('logs a DomainError server fault once and marks it on the wire', () => {
    const log = logger();
    const error = new DomainError('internal', 'barrier: message authentication failed');
    expect(toDomainError(error, 'kv.read', log, 'req-2')).toBe(error);
    expect(toDomainError(error, 'kv.read', log, 'req-2')).toBe(error);
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toContain('request req-2 to "kv.read" failed: internal: DomainError: barrier');
    const body = wireErrorBody(error);
    expect(body).toEqual({
      code: 'internal',
      message: 'barrier: message authentication failed',
      logged: true,
    });
    const rebuilt = fromWireError(body);
    expect(wasLogged(rebuilt)).toBe(true);
    expect(toDomainError(rebuilt, 'core.x', log, 'req-2')).toBe(rebuilt);
    expect(log.lines).toHaveLength(1);
  });

  it('never quotes the message of a SyntaxError (JSON.parse echoes its input)', () => {
    const cause = describeCause(new SyntaxError('Unexpected token s in "s3cr3t"'));
    expect(cause.text).not.toContain('s3cr3t');
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
