import { randomUUID } from 'node:crypto';
import { Client, type SFTPWrapper } from 'ssh2';
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

function writeFile(sftp: SFTPWrapper, path: string, content: string, mode: number): Promise<void> {
  return new Promise((resolve, reject) => {
    sftp.writeFile(path, content, { mode }, (error) =>
      error ? reject(upstream('failed to upload', error)) : resolve(),
    );
  });
}

function exec(client: Client, command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    client.exec(command, (error, stream) => {
      if (error) return reject(upstream('failed to run the install script', error));
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
 * Runs the install script on the host: uploads it and the key line to /tmp under fresh names,
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
    const sftp = await new Promise<SFTPWrapper>((resolve, reject) =>
      client.sftp((error, s) => (error ? reject(upstream('failed to open sftp', error)) : resolve(s))),
    );
    const id = randomUUID();
    const scriptPath = `/tmp/${id}.sh`;
    const keyPath = `/tmp/${id}`;
    await writeFile(sftp, scriptPath, script, 0o700);
    await writeFile(sftp, keyPath, `${keyLine}\n`, 0o600);
    sftp.end();
    await exec(
      client,
      `${scriptPath} ${option} ${keyPath} ${quote(authorizedKeys)}; status=$?; rm -f ${scriptPath}; exit $status`,
    );
  } finally {
    client.end();
  }
}
