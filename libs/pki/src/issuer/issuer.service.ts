import { Inject, Injectable } from '@nestjs/common';
import * as x509 from '@peculiar/x509';
import { DomainError, invalidRequest, type RequestOf, type ResponseOf } from '@coffer/contracts';
import type { pki } from '@coffer/contracts/pki';
import { retryOnConflict, type ServiceRuntime } from '@coffer/event-store';
import { SettingsService } from '../settings/settings.service';
import { CertificateSigner } from '../certificates/certificate-signer';
import { CertificateStore } from '../certificates/certificate-store.service';
import { subjectName } from '../crypto/certificate-builder';
import { buildCsr } from '../crypto/csr-builder';
import {
  exportPrivateKey,
  parsePrivateKeyPem,
  privateKeyToPem,
  resolveKeySpec,
  spkiOf,
  type KeyType,
} from '../crypto/keys';
import { signingKeyOf } from '../crypto/node-signer';
import { certificatePem, pemBlocks, toPem } from '../crypto/pem';
import { planCertificate } from '../policy/certificate-plan';
import { PKI_RUNTIME } from '../pki.di';
import { caRole } from '../roles/role-defaults';
import { IssuerEventLog } from '../shared/document-logs';
import { certFormat, certificateLease, mountTtl, privateKeyFormat, renderCert } from '../shared/formats';
import { KeyFactory } from '../shared/key-factory';
import { CaStore, certifiesKey, isCaCertificate } from './ca-store';
import type { IssuerState } from './issuer.events';

type GenerateType = 'internal' | 'exported';
const NOT_CA = 'the given certificate is not marked for CA use and cannot be used with this backend';

function generateType(type: string): GenerateType {
  if (type === 'internal' || type === 'exported') return type;
  throw new DomainError('unsupported_path', 'unsupported path');
}

/** root/generate, DELETE root, intermediate/generate and set-signed, config/ca. */
@Injectable()
export class IssuerService {
  constructor(
    private readonly cas: CaStore,
    private readonly log: IssuerEventLog,
    private readonly keys: KeyFactory,
    private readonly signer: CertificateSigner,
    private readonly store: CertificateStore,
    private readonly settings: SettingsService,
    @Inject(PKI_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
  ) {}

  async generateRoot(req: RequestOf<typeof pki.rootGenerate>): Promise<ResponseOf<typeof pki.rootGenerate>> {
    const type = generateType(req.params.type);
    const body = req.body;
    const mountUuid = req.mount.uuid;
    const format = certFormat(body.format);
    const keyFormat = privateKeyFormat(body.private_key_format);
    const spec = resolveKeySpec(body.key_type, body.key_bits);
    const existing = await this.cas.state(mountUuid);
    if (existing.state.certPem) return refuseOverwrite(req.mount.path);
    const role = caRole(body, spec.type, spec.bits);
    const plan = planCertificate({ role, body, mountTtl: mountTtl(req.mount), now: this.runtime.clock() });
    const key = await this.keys.generate({ type: spec.type as KeyType, bits: spec.bits });
    const signed = await this.signer.sign({
      mountUuid,
      plan,
      spki: spkiOf(key),
      selfKey: key,
      isCa: true,
      maxPathLength: body.max_path_length,
      permittedDnsDomains: body.permitted_dns_domains,
    });
    const installed = await this.install(mountUuid, (current) => {
      // a CA that appeared meanwhile is not overwritten either
      if (current.certPem) return undefined;
      return { certPem: signed.pem, keyPem: privateKeyToPem(key), chainPems: [], origin: 'generated-root' };
    });
    if (!installed) return refuseOverwrite(req.mount.path);
    await this.store.store(mountUuid, signed);
    await this.settings.rotate(mountUuid, this.runtime.clock().getTime());
    const cert = renderCert(signed.der, format);
    const data: ResponseOf<typeof pki.rootGenerate>['data'] = {
      certificate: cert,
      issuing_ca: cert,
      serial_number: signed.serial,
      expiration: Math.floor(signed.notAfter.getTime() / 1000),
    };
    if (type === 'exported') {
      data.private_key = exportPrivateKey(key, keyFormat, format !== 'der');
      data.private_key_type = spec.type;
      if (format === 'pem_bundle') data.certificate = `${data.private_key}\n${cert}`;
    }
    // the root lives as long as its lease: revoking the lease puts the root on its own CRL
    const secret = certificateLease(signed, this.runtime.clock().getTime());
    return { data, warnings: plan.warnings, secret };
  }

  async deleteRoot(req: RequestOf<typeof pki.rootDelete>): Promise<ResponseOf<typeof pki.rootDelete>> {
    await retryOnConflict(async () => {
      const { state, version } = await this.cas.state(req.mount.uuid);
      if (version === undefined || (!state.certPem && !state.pendingKeyPem)) return;
      const next: IssuerState = { certPem: null, keyPem: null, chainPems: [], pendingKeyPem: null };
      await this.log.append({ mountUuid: req.mount.uuid, kind: 'issuer', name: '', next }, version, [
        { type: 'CaDeleted', data: {} },
      ]);
    });
    return {};
  }

  async generateIntermediate(
    req: RequestOf<typeof pki.intermediateGenerate>,
  ): Promise<ResponseOf<typeof pki.intermediateGenerate>> {
    const type = generateType(req.params.type);
    const body = req.body;
    const format = certFormat(body.format);
    const keyFormat = privateKeyFormat(body.private_key_format);
    const spec = resolveKeySpec(body.key_type, body.key_bits);
    const role = caRole(body, spec.type, spec.bits);
    const plan = planCertificate({ role, body, mountTtl: mountTtl(req.mount), now: this.runtime.clock() });
    const key = await this.keys.generate({ type: spec.type as KeyType, bits: spec.bits });
    const csrDer = buildCsr(
      subjectName(plan.subject),
      plan.sans,
      body.add_basic_constraints,
      signingKeyOf(key),
    );
    const keyPem = privateKeyToPem(key);
    await retryOnConflict(async () => {
      const { state, version } = await this.cas.state(req.mount.uuid);
      const next: IssuerState = { ...state, pendingKeyPem: keyPem };
      await this.log.append({ mountUuid: req.mount.uuid, kind: 'issuer', name: '', next }, version ?? 0, [
        { type: 'IntermediateKeyGenerated', data: { keyPem } },
      ]);
    });
    const data: ResponseOf<typeof pki.intermediateGenerate>['data'] = {
      csr: format === 'der' ? csrDer.toString('base64') : toPem('CERTIFICATE REQUEST', csrDer),
    };
    if (type === 'exported') {
      data.private_key = exportPrivateKey(key, keyFormat, format !== 'der');
      data.private_key_type = spec.type;
    }
    return { data };
  }

  async setSigned(
    req: RequestOf<typeof pki.intermediateSetSigned>,
  ): Promise<ResponseOf<typeof pki.intermediateSetSigned>> {
    const certs = parseCertificates(req.body.certificate);
    const [leaf, ...chain] = certs;
    if (!leaf) throw invalidRequest('no certificate found in the given bundle');
    if (!isCaCertificate(leaf)) throw invalidRequest(NOT_CA);
    const done = await this.install(req.mount.uuid, (current) => {
      const key = parsePrivateKeyPem(current.pendingKeyPem ?? '');
      if (!key)
        throw invalidRequest('could not find an existing private key; generate an intermediate CSR first');
      if (!certifiesKey(leaf, key))
        throw invalidRequest(
          'the given certificate does not match the key of the generated intermediate CSR',
        );
      return {
        certPem: pemOf(leaf),
        keyPem: privateKeyToPem(key),
        chainPems: chain.map(pemOf),
        origin: 'signed-intermediate',
      };
    });
    if (done) await this.settings.rotate(req.mount.uuid, this.runtime.clock().getTime());
    return {};
  }

  async configCa(req: RequestOf<typeof pki.configCa>): Promise<ResponseOf<typeof pki.configCa>> {
    const bundle = req.body.pem_bundle;
    const keyBlock = pemBlocks(bundle).find((b) => b.label.endsWith('PRIVATE KEY'));
    const key = keyBlock ? parsePrivateKeyPem(toPem(keyBlock.label, keyBlock.der)) : undefined;
    if (!key) throw invalidRequest('private key not found in the PEM bundle');
    const [cert, ...chain] = parseCertificates(bundle);
    if (!cert) throw invalidRequest('no certificate found in the PEM bundle');
    if (!certifiesKey(cert, key))
      throw invalidRequest('the private key does not match the certificate of the PEM bundle');
    if (!isCaCertificate(cert)) throw invalidRequest(NOT_CA);
    await this.install(req.mount.uuid, () => ({
      certPem: pemOf(cert),
      keyPem: privateKeyToPem(key),
      chainPems: chain.map(pemOf),
      origin: 'imported',
    }));
    await this.settings.rotate(req.mount.uuid, this.runtime.clock().getTime());
    return {};
  }

  /**
   * Installs a CA decided from the current issuer state (undefined: nothing to do). The issuer
   * row is never removed, so a missing row means a new stream: version 0 makes racing first
   * installs conflict (and the retry sees the winner).
   */
  private install(
    mountUuid: string,
    decide: (current: IssuerState) =>
      | {
          certPem: string;
          keyPem: string;
          chainPems: string[];
          origin: 'generated-root' | 'signed-intermediate' | 'imported';
        }
      | undefined,
  ): Promise<boolean> {
    return retryOnConflict(async () => {
      const { state, version } = await this.cas.state(mountUuid);
      const ca = decide(state);
      if (!ca) return false;
      const next: IssuerState = {
        certPem: ca.certPem,
        keyPem: ca.keyPem,
        chainPems: ca.chainPems,
        pendingKeyPem: null,
      };
      await this.log.append({ mountUuid, kind: 'issuer', name: '', next }, version ?? 0, [
        { type: 'CaInstalled', data: ca },
      ]);
      return true;
    });
  }
}

function refuseOverwrite(mountPath: string): ResponseOf<typeof pki.rootGenerate> {
  return {
    data: null,
    warnings: [
      `Refusing to generate a root certificate over an existing root certificate. If you really want to destroy the original root certificate, please issue a delete against ${mountPath}root.`,
    ],
  };
}

const pemOf = (cert: x509.X509Certificate): string => certificatePem(Buffer.from(cert.rawData));

/** Every CERTIFICATE block of a PEM text, parsed; 400 when one does not parse. */
export function parseCertificates(text: string): x509.X509Certificate[] {
  return pemBlocks(text)
    .filter((b) => b.label === 'CERTIFICATE')
    .map((b) => {
      try {
        return new x509.X509Certificate(b.der);
      } catch (error) {
        throw invalidRequest(`unable to parse certificate: ${(error as Error).message}`);
      }
    });
}
