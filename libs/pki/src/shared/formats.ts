import { invalidRequest, SYSTEM_DEFAULT_LEASE_TTL, SYSTEM_MAX_LEASE_TTL } from '@coffer/contracts';
import { certificatePem } from '../crypto/pem';

export type CertFormat = 'pem' | 'der' | 'pem_bundle';

/** Vault's getFormat check of the `format` parameter. */
export function certFormat(format: string): CertFormat {
  if (format === 'pem' || format === 'der' || format === 'pem_bundle') return format;
  throw invalidRequest('the "format" path parameter must be "pem", "der", or "pem_bundle"');
}

export function privateKeyFormat(format: string): 'der' | 'pkcs8' {
  if (format === '' || format === 'der' || format === 'pem') return 'der';
  if (format === 'pkcs8') return 'pkcs8';
  throw invalidRequest('the "private_key_format" parameter must be "der" or "pkcs8"');
}

/** A certificate (DER) in the requested format: PEM, or base64 DER. */
export const renderCert = (der: Uint8Array, format: CertFormat): string =>
  format === 'der' ? Buffer.from(der).toString('base64') : certificatePem(der);

/** A stored PEM certificate rendered in the requested format. */
export function renderPem(pem: string, format: CertFormat): string {
  if (format !== 'der') return pem;
  const body = pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
  return body;
}

/** The mount's TTLs (seconds), Vault's system values where the mount leaves them unset. */
export function mountTtl(mount: { config: { default_lease_ttl: number; max_lease_ttl: number } }): {
  defaultTtl: number;
  maxTtl: number;
} {
  const { config } = mount;
  const maxTtl = config.max_lease_ttl > 0 ? config.max_lease_ttl : SYSTEM_MAX_LEASE_TTL;
  const defaultTtl =
    config.default_lease_ttl > 0 ? config.default_lease_ttl : Math.min(SYSTEM_DEFAULT_LEASE_TTL, maxTtl);
  return { defaultTtl, maxTtl };
}

/**
 * The non-renewable lease of a certificate (generate_lease or a generated root): it runs until the
 * certificate expires, and its revocation revokes the certificate (`pki.lease.revoke`).
 */
export function certificateLease(
  cert: { serial: string; notAfter: Date },
  nowMs: number,
): { ttl: number; max_ttl: number; renewable: false; internal: { serial_number: string } } {
  const ttl = Math.max(1, Math.floor((cert.notAfter.getTime() - nowMs) / 1000));
  return { ttl, max_ttl: ttl, renewable: false, internal: { serial_number: cert.serial } };
}
