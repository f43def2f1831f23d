import { Inject, Injectable } from '@nestjs/common';
import { invalidRequest, type CallerContext, type RequestOf, type ResponseOf } from '@coffer/contracts';
import type { ssh } from '@coffer/contracts/ssh';
import type sshpk from 'sshpk';
import type { ServiceRuntime } from '@coffer/event-store';
import { CaService } from '../ca/ca.service';
import { parsePublicKey, publicKeyHash } from '../ca/ca-keys';
import { IdentityTemplates } from '../shared/identity';
import { SSH_RUNTIME } from '../ssh.di';
import { randomSerial, signCertificate } from './certificate';
import {
  certificateTtl,
  certificateType,
  checkKeyRequirements,
  criticalOptions,
  extensions,
  keyId,
  renderAllowedList,
  signatureAlgorithm,
  validPrincipals,
  type SubjectKey,
} from './sign.policy';

const FAMILIES = new Set(['rsa', 'dsa', 'ecdsa', 'ed25519']);

function subjectKey(key: sshpk.Key): SubjectKey {
  if (!FAMILIES.has(key.type))
    throw invalidRequest(
      `public_key failed to meet the key requirements: public key type of ${key.type} is not allowed`,
    );
  return { family: key.type as SubjectKey['family'], bits: key.size };
}

/** sign/:name: a user or host certificate for a public key, by the role's rules. */
@Injectable()
export class SignService {
  constructor(
    private readonly ca: CaService,
    private readonly identity: IdentityTemplates,
    @Inject(SSH_RUNTIME) private readonly runtime: ServiceRuntime,
  ) {}

  async sign(req: RequestOf<typeof ssh.sign>, caller: CallerContext): Promise<ResponseOf<typeof ssh.sign>> {
    const roleName = req.params.name;
    const { role, signer } = await this.ca.roleAndSigner(req.mount.uuid, roleName);
    if (!role) throw invalidRequest(`Unknown role: ${roleName}`);
    if (role.key_type !== 'ca') throw invalidRequest(`role ${JSON.stringify(roleName)} is not a ca role`);
    const body = req.body;
    if (body.public_key === '') throw invalidRequest('missing public_key');
    let key: sshpk.Key;
    try {
      key = parsePublicKey(body.public_key);
    } catch (error) {
      throw invalidRequest(`failed to parse public_key as SSH key: ${(error as Error).message}`);
    }
    checkKeyRequirements(subjectKey(key), role);

    const id = keyId(body.key_id, role, {
      displayName: caller.displayName ?? '',
      roleName,
      publicKeyHash: publicKeyHash(key),
    });
    const certType = certificateType(body.cert_type, role);
    const templated = certType === 'user' && role.allowed_users_template && role.allowed_users.includes('{{');
    const entity = templated ? await this.identity.entity(caller) : null;
    const allowed = renderAllowedList(
      certType === 'user' ? role.allowed_users : role.allowed_domains,
      templated,
      (entry) => this.identity.render(entry, entity),
    );
    const principals = validPrincipals(body.valid_principals, role, certType, allowed);
    const ttl = certificateTtl(body.ttl, role, req.mount);
    const critical = criticalOptions(body.critical_options, role);
    const exts = extensions(body.extensions, role);
    if (!signer) throw invalidRequest('no keys configured');
    const algorithm = signatureAlgorithm(role, signer.algorithm === 'rsa');

    const now = Math.floor(this.runtime.clock().getTime() / 1000);
    const serial = randomSerial();
    const signedKey = signCertificate(
      {
        publicBlob: key.toBuffer('rfc4253'),
        keyType: key.toString('ssh').split(' ')[0] ?? '',
        serial,
        certType,
        keyId: id,
        principals,
        validAfter: now - role.not_before_duration,
        validBefore: now + ttl,
        criticalOptions: critical,
        extensions: exts,
      },
      signer,
      algorithm,
    );
    return { data: { serial_number: serial.toString(16), signed_key: signedKey } };
  }
}
