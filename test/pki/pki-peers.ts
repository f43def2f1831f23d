import { execFileSync, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import tls from 'node:tls';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@coffer/testing';
import type { ApiClient } from '../support';

/**
 * The real peers of the pki e2e specs: openssl (verify, x509 -text, req, crl) in a scratch
 * directory, and a few calls every spec repeats.
 */
export class OpensslDir {
  readonly dir = mkdtempSync(join(tmpdir(), 'pki-e2e-'));

  write(name: string, content: string | Buffer): string {
    const file = join(this.dir, name);
    writeFileSync(file, content);
    return file;
  }

  run(args: string[]): { ok: boolean; out: string } {
    const res = spawnSync('openssl', args, { cwd: this.dir, encoding: 'utf8' });
    return { ok: res.status === 0, out: `${res.stdout}${res.stderr}` };
  }

  /** openssl verify of leaf against root, with the intermediates as untrusted, and a CRL if given. */
  verify(root: string, leaf: string, untrusted?: string, crl?: string): { ok: boolean; out: string } {
    const args = ['verify', '-CAfile', this.write('root.pem', root)];
    if (untrusted) args.push('-untrusted', this.write('untrusted.pem', untrusted));
    if (crl) args.push('-crl_check', '-CRLfile', this.write('crl.pem', crl));
    args.push(this.write('leaf.pem', leaf));
    return this.run(args);
  }

  text(cert: string): string {
    return execFileSync('openssl', ['x509', '-noout', '-text', '-in', this.write('text.pem', cert)], {
      encoding: 'utf8',
    });
  }

  /** A DER CRL as PEM, through openssl. */
  crlToPem(der: Buffer): string {
    const input = this.write('crl.der', der);
    return execFileSync('openssl', ['crl', '-inform', 'der', '-in', input], { encoding: 'utf8' });
  }

  /** A CSR made by `openssl req` (the key stays in the scratch directory). */
  csr(keyArgs: string[], subject: string, extra: string[] = []): string {
    const out = join(this.dir, 'req.csr');
    execFileSync(
      'openssl',
      [
        'req',
        '-new',
        ...keyArgs,
        '-nodes',
        '-keyout',
        join(this.dir, 'req.key'),
        '-subj',
        subject,
        ...extra,
        '-out',
        out,
      ],
      { stdio: 'pipe' },
    );
    return execFileSync('cat', [out], { encoding: 'utf8' });
  }
}

/** Mounts a pki engine at `path` with a long max TTL (Vault needs a tune before a 10-year root). */
export async function mountPki(root: ApiClient, path: string): Promise<void> {
  const res = await root.post(`sys/mounts/${path}`, { type: 'pki', config: { max_lease_ttl: '87600h' } });
  if (res.status !== 204) throw new Error(`mount ${path}: ${res.status} ${res.text}`);
}

/** GET of a raw route as bytes (DER). */
export async function rawBytes(
  baseUrl: string,
  path: string,
): Promise<{ status: number; type: string; body: Buffer }> {
  const res = await fetch(`${baseUrl}/v1/${path}`);
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    body: Buffer.from(await res.arrayBuffer()),
  };
}

/** Waits until the pki service answers on a fresh mount (a cluster replica may still be sealed). */
export async function waitForPki(root: ApiClient, mount: string): Promise<void> {
  let streak = 0;
  await waitFor(
    async () => {
      const res = await root.get(`${mount}/cert/ca`);
      streak = res.status === 404 || res.status === 200 ? streak + 1 : 0;
      return streak >= 10;
    },
    { timeoutMs: 30_000, message: `pki service ready on ${mount}` },
  );
}

/** A root CA on a fresh mount: its PEM. */
export async function rootCa(
  root: ApiClient,
  mount: string,
  params: Record<string, unknown> = {},
): Promise<string> {
  await mountPki(root, mount);
  await waitForPki(root, mount);
  const res = await root.post(`${mount}/root/generate/internal`, {
    common_name: `${mount} root`,
    ttl: '87600h',
    ...params,
  });
  if (res.status !== 200) throw new Error(`root/generate: ${res.status} ${res.text}`);
  return res.body.data.certificate as string;
}

/** A TLS handshake against a server holding `cert`/`key`, by a client trusting `ca` only. */
export async function handshake(
  serverPems: { cert: string; key: string },
  ca: string,
): Promise<{ ok: boolean; error?: string }> {
  const server = tls.createServer({ cert: serverPems.cert, key: serverPems.key }, (socket) =>
    socket.end('hello'),
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  try {
    return await new Promise((resolve) => {
      const socket = tls.connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
        socket.end();
        resolve({ ok: socket.authorized });
      });
      socket.on('error', (error) => resolve({ ok: false, error: error.message }));
    });
  } finally {
    server.close();
  }
}
