import { Injectable } from '@nestjs/common';
import { invalidRequest, notFound, type RequestOf, type ResponseOf } from '@coffer/contracts';
import type { ssh } from '@coffer/contracts/ssh';
import { z } from 'zod';
import { RecordStore } from '../records/record.store';
import { sshRoleSchema, type SshRole } from '../roles/role.model';
import { generateKeyPair, parsePrivateKey, parsePublicKey, publicKeyText, type SigningKey } from './ca-keys';

const caRecordSchema = z.object({ private_key: z.string(), public_key: z.string() });
const CA = 'ca';

/** config/ca, public_key, and the CA signer of sign/:name. */
@Injectable()
export class CaService {
  /** parsed signers by mount, valid while the record's stream version is unchanged */
  private readonly signers = new Map<string, { version: number; key: SigningKey }>();

  constructor(private readonly records: RecordStore) {}

  /**
   * Generates a key pair (generate_signing_key true or neither key given) or takes the submitted
   * pair (both keys, which must belong together); either replaces the current CA.
   */
  async write(req: RequestOf<typeof ssh.caWrite>): Promise<ResponseOf<typeof ssh.caWrite>> {
    const { private_key: priv, public_key: pub, generate_signing_key: generate } = req.body;
    let pair: { privateKey: string; publicKey: string };
    let generated = false;
    if (generate === true) {
      if (priv !== '' || pub !== '')
        throw invalidRequest(
          'public_key and private_key must not be set when generate_signing_key is set to true',
        );
      pair = generateKeyPair(req.body.key_type, req.body.key_bits);
      generated = true;
    } else if (generate === false || (priv !== '' && pub !== '')) {
      if (pub === '') throw invalidRequest('missing public_key');
      if (priv === '') throw invalidRequest('missing private_key');
      const signer = parsePrivateKey(priv);
      let publicText: string;
      try {
        publicText = publicKeyText(parsePublicKey(pub));
      } catch (error) {
        throw invalidRequest(`Unable to parse public_key as an SSH public key: ${(error as Error).message}`);
      }
      if (publicText !== signer.publicText) throw invalidRequest('public_key does not match private_key');
      pair = { privateKey: priv, publicKey: publicText };
    } else if (priv === '' && pub === '') {
      pair = generateKeyPair(req.body.key_type, req.body.key_bits);
      generated = true;
    } else {
      throw invalidRequest(
        'only one of public_key and private_key set; both must be set to use BYOK or neither must be set to create new key',
      );
    }
    await this.records.put(req.mount.uuid, 'ca', CA, {
      private_key: pair.privateKey,
      public_key: pair.publicKey,
    });
    return generated ? { data: { public_key: pair.publicKey } } : {};
  }

  async read(req: RequestOf<typeof ssh.caRead>): Promise<ResponseOf<typeof ssh.caRead>> {
    const ca = await this.records.get(req.mount.uuid, 'ca', CA, caRecordSchema);
    if (!ca) throw invalidRequest("keys haven't been configured yet");
    return { data: { public_key: ca.public_key } };
  }

  async delete(req: RequestOf<typeof ssh.caDelete>): Promise<ResponseOf<typeof ssh.caDelete>> {
    await this.records.delete(req.mount.uuid, 'ca', CA);
    this.signers.delete(req.mount.uuid);
    return {};
  }

  /** The CA public key as text/plain; 404 without a CA (Vault answers an empty 404 too). */
  async publicKey(req: RequestOf<typeof ssh.publicKey>): Promise<ResponseOf<typeof ssh.publicKey>> {
    const ca = await this.records.get(req.mount.uuid, 'ca', CA, caRecordSchema);
    if (!ca) throw notFound();
    return { kind: 'raw', status: 200, contentType: 'text/plain', body: ca.public_key };
  }

  /** The role and the CA signer of a sign request, read in one round trip. */
  async roleAndSigner(mountUuid: string, roleName: string): Promise<{ role?: SshRole; signer?: SigningKey }> {
    const [role, ca] = await this.records.getPair(
      mountUuid,
      { kind: 'role', name: roleName, schema: sshRoleSchema },
      { kind: 'ca', name: CA, schema: caRecordSchema },
    );
    return { role: role?.value, signer: ca ? this.signerOf(mountUuid, ca) : undefined };
  }

  /**
   * Drops every parsed signer: a secondary's replay writes CA records without this service (a
   * wipe and re-sync can bring another CA at a version this cache has already seen).
   */
  forgetSigners(): void {
    this.signers.clear();
  }

  /** The CA record's signer, parsed once per record version. */
  private signerOf(
    mountUuid: string,
    record: { value: z.infer<typeof caRecordSchema>; version: number },
  ): SigningKey {
    const cached = this.signers.get(mountUuid);
    if (cached?.version === record.version) return cached.key;
    const key = parsePrivateKey(record.value.private_key);
    this.signers.set(mountUuid, { version: record.version, key });
    return key;
  }
}
