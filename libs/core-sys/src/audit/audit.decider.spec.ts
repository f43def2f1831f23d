import { DomainError } from '@coffer/contracts';
import { decide, EMPTY_AUDIT_STATE, foldAudit, normaliseAuditPath, type AuditCommand } from './audit.decider';

const enable = (over: Partial<Extract<AuditCommand, { kind: 'enable' }>> = {}): AuditCommand => ({
  kind: 'enable',
  path: 'file/',
  type: 'file',
  description: '',
  options: { file_path: 'stdout' },
  local: false,
  salt: 'salt',
  now: 1,
  ...over,
});

const messageOf = (outcome: unknown) => (outcome instanceof DomainError ? outcome.message : outcome);

describe('audit decider', () => {
  it('normalises device paths to one trailing slash', () => {
    expect(normaliseAuditPath('/file//')).toBe('file/');
    expect(normaliseAuditPath('a/b')).toBe('a/b/');
    expect(normaliseAuditPath('')).toBe('');
  });

  it('enables, disables and re-enables a device', () => {
    const enabled = decide(EMPTY_AUDIT_STATE, enable());
    expect(Array.isArray(enabled)).toBe(true);
    const state = foldAudit(enabled as never);
    expect(state.devices['file/']).toMatchObject({ type: 'file', salt: 'salt' });
    expect(messageOf(decide(state, enable()))).toBe('path already in use');
    const disabled = decide(state, { kind: 'disable', path: 'file/', now: 2 });
    expect(foldAudit([...(enabled as never[]), ...(disabled as never[])]).devices).toEqual({});
    expect(decide(EMPTY_AUDIT_STATE, { kind: 'disable', path: 'x/', now: 2 })).toEqual([]);
  });

  it.each([
    [{ type: 'syslog2' }, 'unknown backend type: "syslog2"'],
    [{ options: {} }, 'file_path is required'],
    [{ options: { file_path: 'stdout', format: 'yaml' } }, 'unknown format type "yaml"'],
    [{ options: { file_path: 'stdout', mode: 'rw' } }, 'invalid file mode "rw"'],
    [
      { options: { file_path: 'stdout', log_raw: 'maybe' } },
      expect.stringContaining("unable to parse 'log_raw'"),
    ],
    [{ type: 'socket', options: {} }, 'address is required'],
    [{ type: 'socket', options: { address: 'x', socket_type: 'udp2' } }, 'unsupported socket_type "udp2"'],
    [{ path: '' }, 'missing audit path'],
  ])('refuses %j', (over, message) => {
    expect(messageOf(decide(EMPTY_AUDIT_STATE, enable(over)))).toEqual(message);
  });

  it('sets and removes audited headers, idempotently', () => {
    const set = decide(EMPTY_AUDIT_STATE, { kind: 'setHeader', name: 'x-a', hmac: true }) as never[];
    const state = foldAudit(set);
    expect(state.headers).toEqual({ 'x-a': { hmac: true } });
    expect(decide(state, { kind: 'setHeader', name: 'x-a', hmac: true })).toEqual([]);
    expect(decide(EMPTY_AUDIT_STATE, { kind: 'removeHeader', name: 'x-a' })).toEqual([]);
  });
});
