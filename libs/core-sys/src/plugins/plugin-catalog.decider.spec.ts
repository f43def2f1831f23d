import { sysPluginRegisterBody } from '@coffer/contracts';
import { domainErrorText as textOf } from '../test-support/domain-error-text';
import {
  builtinPlugins,
  catalogListing,
  decidePluginRegistration,
  pickPluginEntry,
  type PluginEntry,
} from './plugin-catalog.decider';

const sha = 'AB'.repeat(32);
const body = (b: Record<string, unknown>) => sysPluginRegisterBody.parse(b);

describe('plugin catalog decider', () => {
  it.each([
    ['secret', { sha256: 'xyz', command: 'p' }, 'Could not decode SHA-256 value from Hex'],
    ['secret', { sha256: 'abcd', command: 'p' }, 'SHA-256 value must be 32 bytes'],
    ['secret', { sha256: sha, command: 'a/../b' }, 'path cannot contain parent references'],
    ['secret', { sha256: sha, command: '/opt/plugins/../etc/p' }, 'path cannot contain parent references'],
    ['secret', { sha256: sha, command: '/etc/p' }, 'command must be inside the plugin directory'],
    ['secret', { sha256: sha, command: 'p', version: '1.0' }, 'not a valid semantic version'],
    ['secret', { sha256: sha, command: 'p', version: '1.0.0+builtin' }, 'not allowed to contain "builtin"'],
    ['secret', { sha256: sha, command: 'p', env: ['NOEQUALS'] }, 'must be of the form key=value'],
    ['engine', { sha256: sha, command: 'p' }, '"engine" is not a supported plugin type'],
  ])('%s %j → %s', (type, b, text) => {
    expect(textOf(() => decidePluginRegistration(type, 'p', body(b), '/opt/plugins'))).toContain(text);
  });

  it('accepts a command inside the plugin directory and lower-cases the sha256', () => {
    const entry = decidePluginRegistration(
      'secret',
      'p',
      body({ sha256: sha, command: '/opt/plugins/p' }),
      '/opt/plugins',
    );
    expect(entry).toMatchObject({
      type: 'secret',
      sha256: sha.toLowerCase(),
      version: '',
      args: [],
      env: [],
    });
  });

  const builtins = builtinPlugins(
    new Map([
      ['kv', { type: 'kv', kind: 'secret' as const, service: 'kv' }],
      ['userpass', { type: 'userpass', kind: 'auth' as const, service: 'core-sys' }],
    ]),
    '0.1.0',
  );
  const entry = (version: string): PluginEntry => ({
    type: 'secret',
    name: 'totp',
    version,
    sha256: sha,
    command: 'totp',
    args: [],
    env: [],
  });

  it('lists builtins as supported and registered versions side by side', () => {
    const listing = catalogListing(builtins, [entry('v1.0.0'), entry('')]);
    expect(listing.secret).toEqual(['kv', 'totp']);
    expect(listing.auth).toEqual(['userpass']);
    expect(listing.detailed.filter((d) => d.name === 'totp')).toHaveLength(2);
    expect(listing.detailed.find((d) => d.name === 'kv')).toMatchObject({
      builtin: true,
      deprecation_status: 'supported',
      version: 'v0.1.0+builtin.coffer',
    });
  });

  it('picks the entry of a version; a versioned-only plugin needs the version', () => {
    expect(pickPluginEntry(undefined, [entry('v1.0.0')], '1.0.0')?.version).toBe('v1.0.0');
    expect(textOf(() => pickPluginEntry(undefined, [entry('v1.0.0')], undefined))).toContain('version');
    expect(pickPluginEntry(undefined, [entry('v1.0.0')], 'v2.0.0')).toBeUndefined();
    expect(pickPluginEntry(builtins[0], [], undefined)).toMatchObject({ builtin: true, name: 'kv' });
  });
});
