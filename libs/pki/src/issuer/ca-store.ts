import { createPublicKey, type KeyObject } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import * as x509 from '@peculiar/x509';
import { DomainError, invalidRequest } from '@coffer/contracts';
import { parsePrivateKeyPem } from '../crypto/keys';
import { signingKeyOf, type NodeSigningKey } from '../crypto/node-signer';
import { pemBlocks } from '../crypto/pem';
import { DocumentRepository } from '../shared/document.repository';
import { NO_ISSUER, type IssuerState } from './issuer.events';

/** A mount's CA, parsed and ready to sign. */
export interface LoadedCa {
  cert: x509.X509Certificate;
  certPem: string;
  key: KeyObject;
  signer: NodeSigningKey;
  /** CA certificates above this one, nearest first */
  chainPems: string[];
  /** subject key id (hex) */
  keyId: string | undefined;
  /** issuer document version (caches key on it) */
  version: number;
}

export const NO_CA_MESSAGE = 'backend must be configured with a CA certificate/key';

/**
 * Loads the issuer document of a mount and keeps the parsed CA per mount and version, so a
 * request pays one read and one decryption, not a PEM parse and a key import.
 */
@Injectable()
export class CaStore {
  private readonly parsed = new Map<string, LoadedCa>();

  constructor(private readonly docs: DocumentRepository) {}

  async state(mountUuid: string): Promise<{ state: IssuerState; version: number | undefined }> {
    const doc = await this.docs.load<IssuerState>(mountUuid, 'issuer');
    return { state: doc?.value ?? NO_ISSUER, version: doc?.version };
  }

  /** The CA, or undefined when the mount has none. */
  async find(mountUuid: string): Promise<LoadedCa | undefined> {
    const { state, version } = await this.state(mountUuid);
    return this.fromState(mountUuid, state, version);
  }

  /** The CA of an issuer document already read (parsed once per mount and version). */
  fromState(mountUuid: string, state: IssuerState, version: number | undefined): LoadedCa | undefined {
    if (!state.certPem || !state.keyPem || version === undefined) return undefined;
    const cached = this.parsed.get(mountUuid);
    if (cached?.version === version) return cached;
    const ca = parseCa(state, version);
    this.parsed.set(mountUuid, ca);
    return ca;
  }

  /**
   * Drops every parsed CA: replicated rows replace issuer documents outside this replica's
   * writes, and a wipe and re-sync may bring a different CA back at a version seen before.
   */
  forget(): void {
    this.parsed.clear();
  }

  /** The CA; 400 with Vault's text when the mount has none. */
  async require(mountUuid: string): Promise<LoadedCa> {
    const ca = await this.find(mountUuid);
    if (!ca) throw invalidRequest(NO_CA_MESSAGE);
    return ca;
  }
}

function parseCa(state: IssuerState, version: number): LoadedCa {
  const key = parsePrivateKeyPem(state.keyPem ?? '');
  const block = pemBlocks(state.certPem ?? '')[0];
  if (!key || !block) throw new DomainError('internal', 'pki: stored CA cannot be parsed');
  const cert = new x509.X509Certificate(block.der);
  const ski = cert.getExtension(x509.SubjectKeyIdentifierExtension);
  return {
    cert,
    certPem: state.certPem ?? '',
    key,
    signer: signingKeyOf(key),
    chainPems: state.chainPems,
    keyId: ski?.keyId,
    version,
  };
}

/** Whether a certificate certifies this private key. */
export function certifiesKey(cert: x509.X509Certificate, key: KeyObject): boolean {
  const spki = createPublicKey(key).export({ type: 'spki', format: 'der' });
  return Buffer.from(cert.publicKey.rawData).equals(spki);
}

/** Whether a certificate is a CA certificate (basicConstraints CA:TRUE). */
export function isCaCertificate(cert: x509.X509Certificate): boolean {
  return cert.getExtension(x509.BasicConstraintsExtension)?.ca === true;
}
