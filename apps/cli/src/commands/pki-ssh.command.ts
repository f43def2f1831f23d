import { spawn } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { action, activity, expectArgs, type CliDeps } from '../core/cli-command';
import type { CliContext } from '../core/cli-context';
import { CliLocalError, CliUsageError } from '../core/cli-errors';
import { formatValue, isObject } from '../core/cli-format';

/** `pki issue`: pki/issue/:role with key=value fields, the answer as a secret table. */
export function registerPkiCommands(program: Command, deps: CliDeps): void {
  const pki = program.command('pki').description('PKI shortcuts');
  pki
    .command('issue')
    .description('issue a certificate: coffer pki issue [-mount=pki] <role> common_name=host.example.com')
    .argument('<role>')
    .argument('[key=value...]')
    .option('--mount <path>', 'the PKI mount', 'pki')
    .option('--cert-file <file>', 'also write the certificate (and chain) to this file')
    .option('--key-file <file>', 'also write the private key to this file (mode 0600)')
    .action(
      action<{ mount: string; certFile?: string; keyFile?: string }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 1, Infinity);
        const role = args[0]!;
        const mount = opts.mount.replace(/^\/+|\/+$/g, '');
        activity.doing = `issuing a certificate from ${mount}/issue/${role}`;
        const res = await ctx.http.post(`${mount}/issue/${role}`, ctx.keyValues(args.slice(1)));
        const data = isObject(res.body?.data) ? res.body.data : {};
        if (opts.certFile !== undefined && typeof data.certificate === 'string') {
          const chain = Array.isArray(data.ca_chain) ? data.ca_chain.map(String) : [];
          writeFileSync(opts.certFile, `${[data.certificate, ...chain].join('\n')}\n`);
        }
        if (opts.keyFile !== undefined && typeof data.private_key === 'string')
          writeFileSync(opts.keyFile, `${data.private_key}\n`, { mode: 0o600 });
        ctx.output(res.body);
      }),
    );
}

interface SshOpts {
  mode?: string;
  role?: string;
  mountPoint: string;
  publicKeyPath?: string;
  privateKeyPath?: string;
  sshExecutable: string;
  validPrincipals?: string;
  strictHostKeyChecking?: string;
  userKnownHostsFile?: string;
  noExec?: boolean;
  exec?: boolean;
}

function parseTarget(target: string): { user: string; host: string } {
  const at = target.lastIndexOf('@');
  if (at < 0) return { user: userInfo().username, host: target };
  return { user: target.slice(0, at), host: target.slice(at + 1) };
}

function defaultKey(home: string, pub: boolean): string {
  for (const name of ['id_ed25519', 'id_ecdsa', 'id_rsa']) {
    const file = path.join(home, '.ssh', pub ? `${name}.pub` : name);
    if (existsSync(file)) return file;
  }
  return path.join(home, '.ssh', pub ? 'id_rsa.pub' : 'id_rsa');
}

function runSsh(ctx: CliContext, executable: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(executable, args, { stdio: 'inherit', env: ctx.config.childEnv });
    child.on('error', (e) => reject(new CliLocalError(`failed to run ${executable}: ${e.message}`)));
    child.on('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
  });
}

/**
 * `ssh`: -mode=ca signs the user's public key with the role and runs ssh with the certificate;
 * -mode=otp asks for a one-time password, prints it and runs ssh (type it at the prompt).
 */
export function registerSshCommand(program: Command, deps: CliDeps): void {
  program
    .command('ssh')
    .description('connect with a signed certificate (-mode=ca) or a one-time password (-mode=otp)')
    .argument('<user@host>')
    .argument('[ssh args...]')
    .option('--mode <mode>', 'ca or otp')
    .option('--role <role>', 'the SSH role')
    .option('--mount-point <path>', 'the SSH mount', 'ssh')
    .option('--public-key-path <file>', 'public key to sign (ca mode; default ~/.ssh/id_*.pub)')
    .option('--private-key-path <file>', 'matching private key (ca mode)')
    .option('--valid-principals <names>', 'principals to sign for (default: the user)')
    .option('--ssh-executable <path>', 'the ssh program', 'ssh')
    .option('--strict-host-key-checking <value>', 'ssh StrictHostKeyChecking')
    .option('--user-known-hosts-file <file>', 'ssh UserKnownHostsFile')
    .option('--no-exec', 'only print the credential (otp) or write the certificate (ca); do not run ssh')
    .allowUnknownOption(false)
    .action(
      action<SshOpts>(deps, async (ctx, args, opts) => {
        expectArgs(args, 1, Infinity);
        const mode = (opts.mode ?? '').toLowerCase();
        if (mode !== 'ca' && mode !== 'otp') throw new CliUsageError('-mode must be ca or otp');
        if (opts.role === undefined) throw new CliUsageError('-role is required');
        const { user, host } = parseTarget(args[0]!);
        const extra = args.slice(1);
        const mount = opts.mountPoint.replace(/^\/+|\/+$/g, '');
        const sshOptions: string[] = [];
        if (opts.strictHostKeyChecking !== undefined)
          sshOptions.push('-o', `StrictHostKeyChecking=${opts.strictHostKeyChecking}`);
        if (opts.userKnownHostsFile !== undefined)
          sshOptions.push('-o', `UserKnownHostsFile=${opts.userKnownHostsFile}`);

        if (mode === 'otp') {
          const ip = (await lookup(host)).address;
          activity.doing = `requesting an OTP from ${mount}/creds/${opts.role}`;
          const res = await ctx.http.post(`${mount}/creds/${opts.role}`, { ip, username: user });
          const data = isObject(res.body?.data) ? res.body.data : {};
          if (ctx.structured || ctx.flags.field !== undefined || opts.exec === false)
            return ctx.output(res.body);
          ctx.ui.warn(`OTP for the session is: ${formatValue(data.key)}`);
          const port = data.port === undefined ? [] : ['-p', formatValue(data.port)];
          process.exitCode = await runSsh(ctx, opts.sshExecutable, [
            ...sshOptions,
            ...port,
            `${user}@${host}`,
            ...extra,
          ]);
          return;
        }

        const publicKeyPath = opts.publicKeyPath ?? defaultKey(ctx.config.home, true);
        const privateKeyPath = opts.privateKeyPath ?? publicKeyPath.replace(/\.pub$/, '');
        let publicKey: string;
        try {
          publicKey = readFileSync(publicKeyPath, 'utf8');
        } catch (e) {
          throw new CliLocalError(`failed to read public key ${publicKeyPath}: ${(e as Error).message}`);
        }
        activity.doing = `signing the key with ${mount}/sign/${opts.role}`;
        const res = await ctx.http.post(`${mount}/sign/${opts.role}`, {
          public_key: publicKey,
          valid_principals: opts.validPrincipals ?? user,
          cert_type: 'user',
        });
        const data = isObject(res.body?.data) ? res.body.data : {};
        const signed = typeof data.signed_key === 'string' ? data.signed_key : '';
        if (signed === '') throw new CliLocalError('the server returned no signed key');
        if (ctx.structured || ctx.flags.field !== undefined) return ctx.output(res.body);
        const dir = mkdtempSync(path.join(tmpdir(), 'coffer-ssh-'));
        const certFile = path.join(dir, 'id-cert.pub');
        writeFileSync(certFile, signed.endsWith('\n') ? signed : `${signed}\n`, { mode: 0o600 });
        if (opts.exec === false) {
          ctx.ui.print(certFile);
          return;
        }
        try {
          process.exitCode = await runSsh(ctx, opts.sshExecutable, [
            ...sshOptions,
            '-i',
            privateKeyPath,
            '-o',
            `CertificateFile=${certFile}`,
            `${user}@${host}`,
            ...extra,
          ]);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }),
    );
}
