import { loadCliConfig } from '../cli.config';
import { buildProgram } from '../cli-program';
import { Ui } from '../core/cli-ui';
import { completionScript, completionTable } from './completion.command';
import { splitMountPath } from './kv-target';
import { decodeWithOtp } from './operator.command';
import { formatPolicy } from './policy.command';

const program = () =>
  buildProgram({
    config: loadCliConfig({ HOME: '/nonexistent' }),
    ui: new Ui({ stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }, true),
  });

describe('configuration from the environment', () => {
  it('reads COFFER_* first, then VAULT_*, with Vault defaults', () => {
    expect(loadCliConfig({ HOME: '/h' })).toMatchObject({
      address: 'http://127.0.0.1:8200',
      token: undefined,
      tlsSkipVerify: false,
      noColor: false,
      home: '/h',
    });
    expect(
      loadCliConfig({
        HOME: '/h',
        VAULT_ADDR: 'https://v:8200',
        VAULT_TOKEN: 'vt',
        VAULT_SKIP_VERIFY: 'true',
      }),
    ).toMatchObject({ address: 'https://v:8200', token: 'vt', tlsSkipVerify: true });
    expect(
      loadCliConfig({
        HOME: '/h',
        VAULT_ADDR: 'https://v',
        COFFER_ADDR: 'https://c',
        COFFER_TOKEN: 'ct',
        VAULT_TOKEN: 'vt',
      }),
    ).toMatchObject({ address: 'https://c', token: 'ct' });
    expect(loadCliConfig({ HOME: '/h', NO_COLOR: '1', COFFER_FORMAT: 'JSON' })).toMatchObject({
      noColor: true,
      format: 'json',
    });
  });
});

describe('completion', () => {
  it('knows every command path and its flags in single-dash spelling', () => {
    const table = completionTable(program());
    expect(table.get('')).toEqual(
      expect.arrayContaining(['kv', 'operator', 'secrets', '-format', '-address']),
    );
    expect(table.get('kv')).toEqual(expect.arrayContaining(['get', 'put', 'metadata', 'rollback']));
    expect(table.get('kv metadata')).toEqual(expect.arrayContaining(['get', 'put', 'delete']));
    expect(table.get('kv get')).toEqual(expect.arrayContaining(['-mount', '-version', '-field']));
    expect(table.get('operator')).toEqual(
      expect.arrayContaining(['init', 'unseal', 'seal', 'rekey', 'generate-root', 'members']),
    );
  });

  it('renders bash and zsh scripts', () => {
    const bash = completionScript(program(), 'bash');
    expect(bash).toContain('complete -o default -F _coffer coffer');
    expect(bash).toContain('"kv metadata") echo "get put delete');
    expect(completionScript(program(), 'zsh')).toContain('bashcompinit');
  });
});

describe('local helpers', () => {
  it('splits a kv path at its mount', () => {
    expect(splitMountPath('secret/a/b', 'secret/')).toEqual({ mount: 'secret', path: 'a/b' });
    expect(splitMountPath('/team/kv/x', 'team/kv/')).toEqual({ mount: 'team/kv', path: 'x' });
    // a namespace as a path prefix: the server names the mount relative to the namespace
    expect(splitMountPath('ns1/kv/app', 'kv/')).toEqual({ mount: 'ns1/kv', path: 'app' });
    expect(splitMountPath('secret', 'secret/')).toEqual({ mount: 'secret', path: '' });
  });

  it('decodes a generate-root token with its OTP', () => {
    const token = 'hvs.abcdefghijklmnopqrstuvwxyz012345';
    const otp = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij'.slice(0, token.length);
    const encoded = Buffer.from([...Buffer.from(token)].map((b, i) => b ^ otp.charCodeAt(i))).toString(
      'base64',
    );
    expect(decodeWithOtp(encoded, otp)).toBe(token);
    expect(() => decodeWithOtp(encoded, 'short')).toThrow(/length/);
  });

  it('formats a policy in canonical HCL layout', () => {
    expect(formatPolicy('path "a/*" {capabilities=["read"]}')).toBe(
      'path "a/*" {\n  capabilities = ["read"]\n}\n',
    );
    expect(() => formatPolicy('path "a" {')).toThrow();
  });
});
