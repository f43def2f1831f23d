import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { userInfo } from 'node:os';
import path from 'node:path';
import { freePort, waitFor } from '@coffer/testing';

/** Real OpenSSH peers for the ssh engine's tests: ssh-keygen, an unprivileged sshd, the ssh client. */

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end (never throws on a status). */
export function run(
  cmd: string,
  args: string[],
  opts: { input?: string; env?: Record<string, string> } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...opts.env }, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    // a program that never reads its stdin closes it: that is not a failure
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
  });
}

export const currentUser = (): string => userInfo().username;

/** A fresh key pair in `dir` (ssh-keygen): the private key path and the public key line. */
export async function keygen(
  dir: string,
  name: string,
  type = 'ed25519',
  bits?: number,
): Promise<{ path: string; publicKey: string }> {
  const file = path.join(dir, name);
  const args = ['-q', '-t', type, '-f', file, '-N', '', '-C', name, ...(bits ? ['-b', String(bits)] : [])];
  const res = await run('ssh-keygen', args);
  if (res.code !== 0) throw new Error(`ssh-keygen: ${res.stderr}`);
  return { path: file, publicKey: readFileSync(`${file}.pub`, 'utf8').trim() };
}

/** `ssh-keygen -L` of a certificate text. */
export async function describeCertificate(dir: string, cert: string): Promise<string> {
  const file = path.join(dir, `cert-${Date.now()}-${Math.random().toString(36).slice(2)}.pub`);
  writeFileSync(file, cert);
  const res = await run('ssh-keygen', ['-L', '-f', file]);
  if (res.code !== 0) throw new Error(`ssh-keygen -L: ${res.stderr}`);
  return res.stdout;
}

export interface Sshd {
  port: number;
  hostKeyPath: string;
  hostPublicKey: string;
  authorizedKeys: string;
  stop(): Promise<void>;
}

/**
 * An OpenSSH sshd on a loopback port, run as the current user, with its own host key, the CA
 * of `trustedUserCaKeys` trusted for user certificates and `authorizedKeys` as the only
 * authorized_keys file. `hostCertificate` (text) is presented to clients when given.
 */
export async function startSshd(
  parent: string,
  opts: { trustedUserCaKeys?: string; hostCertificate?: (hostPublicKey: string) => Promise<string> } = {},
): Promise<Sshd> {
  // sshd started by root wants its privilege separation directory (Debian creates it at boot).
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const dir = mkdtempSync(path.join(parent, 'sshd-'));
  const host = await keygen(dir, 'ssh_host_ed25519_key');
  const port = await freePort();
  const authorizedKeys = path.join(dir, 'authorized_keys');
  writeFileSync(authorizedKeys, '', { mode: 0o600 });
  const lines = [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${host.path}`,
    `PidFile ${path.join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${authorizedKeys}`,
    'StrictModes no',
    'UsePAM no',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'LogLevel VERBOSE',
  ];
  if (opts.trustedUserCaKeys !== undefined) {
    const caFile = path.join(dir, 'trusted_user_ca_keys');
    writeFileSync(caFile, opts.trustedUserCaKeys);
    lines.push(`TrustedUserCAKeys ${caFile}`);
  }
  if (opts.hostCertificate) {
    const certFile = `${host.path}-cert.pub`;
    writeFileSync(certFile, await opts.hostCertificate(host.publicKey));
    lines.push(`HostCertificate ${certFile}`);
  }
  const config = path.join(dir, 'sshd_config');
  writeFileSync(config, `${lines.join('\n')}\n`);
  const child: ChildProcess = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', config], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        socket.once('connect', () => (socket.destroy(), resolve(true)));
        socket.once('error', () => resolve(false));
      }),
    { timeoutMs: 10_000, message: 'sshd did not listen' },
  );
  return {
    port,
    hostKeyPath: host.path,
    hostPublicKey: host.publicKey,
    authorizedKeys,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** `ssh ... true` as `user` with a key (and a certificate): the exit code and stderr. */
export function sshLogin(opts: {
  port: number;
  identity: string;
  certificate?: string;
  user?: string;
  knownHosts?: string;
  hostAlias?: string;
}): Promise<RunResult> {
  const args = [
    '-F',
    '/dev/null',
    '-i',
    opts.identity,
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    'BatchMode=yes',
    '-o',
    'ConnectTimeout=10',
    '-o',
    'LogLevel=ERROR',
    '-p',
    String(opts.port),
  ];
  if (opts.certificate) args.push('-o', `CertificateFile=${opts.certificate}`);
  if (opts.knownHosts) {
    args.push('-o', `UserKnownHostsFile=${opts.knownHosts}`, '-o', 'StrictHostKeyChecking=yes');
  } else {
    args.push('-o', 'UserKnownHostsFile=/dev/null', '-o', 'StrictHostKeyChecking=no');
  }
  if (opts.hostAlias) args.push('-o', `HostKeyAlias=${opts.hostAlias}`);
  args.push(`${opts.user ?? currentUser()}@127.0.0.1`, 'echo', 'coffer-login-ok');
  return run('ssh', args);
}
