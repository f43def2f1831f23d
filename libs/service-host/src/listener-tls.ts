import { readFileSync } from 'node:fs';
import type { Server as TlsServer, SecureVersion, TLSSocket } from 'node:tls';
import { ConfigError, type ListenerConfig } from '@coffer/config';
import { z } from 'zod';

/**
 * A listener's TLS settings as apps carry them in their config (file names, checked at boot),
 * Vault's listener keys: tls_cert_file, tls_key_file, tls_min_version, tls_client_ca_file and
 * tls_require_and_verify_client_cert. Absent = plain HTTP (tls_disable = true).
 */
export const listenerTlsSchema = z.object({
  certFile: z.string(),
  keyFile: z.string(),
  minVersion: z.enum(['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3']),
  clientCaFile: z.string().optional(),
  requireClientCert: z.boolean(),
});
export type ListenerTlsConfig = z.output<typeof listenerTlsSchema>;

/** What Node's https/tls createServer takes for a listener. */
export interface ListenerTlsOptions {
  cert: Buffer;
  key: Buffer;
  /** default Node's (TLSv1.2) */
  minVersion?: SecureVersion;
  ca?: Buffer;
  requestCert?: boolean;
  rejectUnauthorized?: boolean;
}

/** The TLS part of a parsed listener block, undefined when TLS is disabled. */
export function listenerTlsConfig(listener: ListenerConfig): ListenerTlsConfig | undefined {
  if (listener.tlsDisable || !listener.tlsCertFile || !listener.tlsKeyFile) return undefined;
  return {
    certFile: listener.tlsCertFile,
    keyFile: listener.tlsKeyFile,
    minVersion: listener.tlsMinVersion,
    ...(listener.tlsClientCaFile === undefined ? {} : { clientCaFile: listener.tlsClientCaFile }),
    requireClientCert: listener.tlsRequireClientCert,
  };
}

/** Reads the PEM files; an unreadable file is a configuration error (exit 2), not a crash. */
export function loadListenerTls(tls: ListenerTlsConfig): ListenerTlsOptions {
  const issues: string[] = [];
  const read = (key: string, file: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (e) {
      issues.push(`${key}: cannot read ${file}: ${(e as Error).message}`);
      return Buffer.alloc(0);
    }
  };
  const cert = read('tls_cert_file', tls.certFile);
  const key = read('tls_key_file', tls.keyFile);
  const ca = tls.clientCaFile === undefined ? undefined : read('tls_client_ca_file', tls.clientCaFile);
  if (issues.length > 0) throw new ConfigError(issues);
  return {
    cert,
    key,
    minVersion: tls.minVersion,
    ...(ca === undefined ? {} : { ca }),
    // With a client CA every client is asked for a certificate; see enforceClientCertificates.
    requestCert: ca !== undefined,
    rejectUnauthorized: ca !== undefined && tls.requireClientCert,
  };
}

/**
 * Node accepts a client certificate its CA did not sign when rejectUnauthorized is off (the
 * client may then go without one): a certificate that is presented must still verify, or the
 * connection is closed before a byte of HTTP is read.
 */
export function enforceClientCertificates(server: TlsServer, tls: ListenerTlsOptions | undefined): void {
  if (!tls?.requestCert || tls.rejectUnauthorized) return;
  server.prependListener('secureConnection', (socket: TLSSocket) => {
    const peer = socket.getPeerCertificate();
    if (!socket.authorized && peer !== null && Object.keys(peer).length > 0) socket.destroy();
  });
}
