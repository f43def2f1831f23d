import { z } from 'zod';
import { defineEvent, EventRegistry, EventSchemaError } from './event-registry';

const Written = defineEvent(
  'SecretWritten',
  1,
  z.object({ path: z.string(), ttl: z.number().int().default(0) }),
);
const WrittenV2 = defineEvent('SecretWritten', 2, z.object({ path: z.string(), cas: z.number().int() }));

describe('EventRegistry', () => {
  const registry = new EventRegistry([Written, WrittenV2]);

  it('validates and normalises data on encode', () => {
    expect(registry.encode(Written.create({ path: 'a' }))).toEqual({ path: 'a', ttl: 0 });
    expect(registry.encode(WrittenV2.create({ path: 'a', cas: 2 }))).toEqual({ path: 'a', cas: 2 });
  });

  it('names unknown types and the registered ones', () => {
    expect(() => registry.encode({ type: 'Nope', version: 1, data: {} })).toThrow(
      'event Nope v1: unknown event type (registered: SecretWritten@1, SecretWritten@2)',
    );
    expect(() => registry.decode('SecretWritten', 3, {})).toThrow(EventSchemaError);
  });

  it('reports invalid fields without their values', () => {
    let message = '';
    try {
      registry.encode({
        type: 'SecretWritten',
        version: 2,
        data: { path: 's3cr3t-value', cas: 's3cr3t-cas' },
      });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('cas: invalid_type');
    expect(message).not.toContain('s3cr3t');
  });

  it('refuses duplicate registrations and bad names', () => {
    expect(() => new EventRegistry([Written, Written])).toThrow('registered twice');
    expect(() => defineEvent('Bad|Name', 1, z.object({}))).toThrow('invalid event type name');
    expect(() => defineEvent('Fine', 0, z.object({}))).toThrow('positive integer');
  });

  it('narrows stored events by type and version', () => {
    const e = { type: 'SecretWritten', schemaVersion: 2, data: { path: 'p', cas: 1 } as unknown };
    expect(WrittenV2.is(e)).toBe(true);
    expect(Written.is(e)).toBe(false);
    if (WrittenV2.is(e)) expect(e.data.cas).toBe(1);
  });
});
