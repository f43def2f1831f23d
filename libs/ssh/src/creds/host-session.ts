import { randomUUID } from 'node:crypto';
import { Client } from 'ssh2';
import { DomainError } from '@coffer/contracts';

/** Where and as whom the engine logs in to a host (dynamic keys). */
export interface HostLogin {
  host: string;
  port: number;
  username: string;
  privateKey: string;
}

const TIMEOUT_MS = 15_000;

const upstream = (what: string, error: unknown): DomainError =>
  new DomainError('upstream_error', `${what}: ${error instanceof Error ? error.message : String(error)}`);

function connect(login: HostLogin): Promise<Client> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    client.once('ready', () => resolve(client));
    client.once('error', (error) => reject(upstream('failed to connect to the host', error)));
    // Like Vault, the host key is not checked: the host is named by its IP in the role's CIDRs.
    client.connect({ ...login, readyTimeout: TIMEOUT_MS });
  });
}

/** Runs `command` on the host with `input` on its stdin; fails unless it exits 0. */
function exec(client: Client, command: string, input = ''): Promise<void> {
  return new Promise((resolve, reject) => {
    client.exec(command, (error, stream) => {
      if (error) return reject(upstream('failed to run the install script', error));
      stream.end(input);
      stream.on('data', () => undefined);
      stream.stderr.on('data', () => undefined);
      stream.on('close', (code: number | null) =>
        code === 0
          ? resolve()
          : reject(new DomainError('upstream_error', `install script exited with ${code}`)),
      );
    });
  });
}

const quote = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;

/**
 * Runs the install script on the host: writes it and the key line to /tmp under fresh names,
 * then `<script> <install|uninstall> <key file> <authorized_keys>` (the script removes the key file).
 */
export async function runInstallScript(
  login: HostLogin,
  script: string,
  option: 'install' | 'uninstall',
  keyLine: string,
  authorizedKeys: string,
): Promise<void> {
  const client = await connect(login);
  try {
    const id = randomUUID();
    const scriptPath = `/tmp/${id}.sh`;
    const keyPath = `/tmp/${id}`;
    // Uploaded through the shell (no sftp subsystem needed), readable by the admin user only.
    await exec(client, `umask 077 && cat > ${scriptPath} && chmod 700 ${scriptPath}`, script);
    await exec(client, `umask 077 && cat > ${keyPath}`, `${keyLine}\n`);
    await exec(
      client,
      `${scriptPath} ${option} ${keyPath} ${quote(authorizedKeys)}; status=$?; rm -f ${scriptPath}; exit $status`,
    );
  } finally {
    client.end();
  }
}
