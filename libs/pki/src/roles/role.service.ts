import { Injectable } from '@nestjs/common';
import { invalidRequest, notFound, type RequestOf, type ResponseOf } from '@coffer/contracts';
import type { pki, PkiRoleBody, PkiRoleData } from '@coffer/contracts/pki';
import { retryOnConflict } from '@coffer/event-store';
import { resolveKeySpec } from '../crypto/keys';
import { policyOids } from '../policy/usages';
import { RoleEventLog } from '../shared/document-logs';
import { DocumentRepository } from '../shared/document.repository';

/**
 * Vault's role write checks (path_roles.go pathRoleCreate): the key type and size, TTLs, and
 * the fields that must parse. The role is stored with its defaults resolved (key_bits 0 ->
 * 2048 for rsa), as Vault answers it.
 */
export function decideRole(body: PkiRoleBody): PkiRoleData {
  const spec = resolveKeySpec(body.key_type, body.key_bits, true);
  if (body.max_ttl > 0 && body.ttl > body.max_ttl)
    throw invalidRequest('"ttl" value must be less than "max_ttl" value');
  const signatureBits = body.signature_bits;
  if (![0, 256, 384, 512].includes(signatureBits))
    throw invalidRequest(`unsupported signature_bits: ${signatureBits}`);
  if (policyOids(body.policy_identifiers).bad !== undefined)
    throw invalidRequest(`invalid policy identifier ${policyOids(body.policy_identifiers).bad}`);
  if (body.not_after !== '' && Number.isNaN(Date.parse(body.not_after)))
    throw invalidRequest(`parsing time "${body.not_after}" as "2006-01-02T15:04:05Z07:00": cannot parse`);
  for (const v of body.cn_validations)
    if (!['email', 'hostname', 'disabled'].includes(v))
      throw invalidRequest(`unknown cn_validation type: ${v}`);
  if (body.issuer_ref !== 'default' && body.issuer_ref !== '')
    throw invalidRequest(`unable to find issuer ${body.issuer_ref}: only the default issuer exists`);
  return { ...body, key_bits: spec.bits, issuer_ref: 'default' };
}

/** pki/roles: write (whole role, Vault's defaults), read, delete, list. */
@Injectable()
export class RoleService {
  constructor(
    private readonly docs: DocumentRepository,
    private readonly log: RoleEventLog,
  ) {}

  async find(mountUuid: string, name: string): Promise<PkiRoleData | undefined> {
    return (await this.docs.load<PkiRoleData>(mountUuid, 'role', name))?.value ?? undefined;
  }

  async write(req: RequestOf<typeof pki.roleWrite>): Promise<ResponseOf<typeof pki.roleWrite>> {
    const role = decideRole(req.body);
    const name = req.params.name;
    await retryOnConflict(async () => {
      const doc = await this.docs.load<PkiRoleData | null>(req.mount.uuid, 'role', name);
      await this.log.append(
        { mountUuid: req.mount.uuid, kind: 'role', name, next: role },
        doc?.version ?? 'any',
        [{ type: 'PkiRoleWritten', data: { role } }],
      );
    });
    return {};
  }

  async read(req: RequestOf<typeof pki.roleRead>): Promise<ResponseOf<typeof pki.roleRead>> {
    const role = await this.find(req.mount.uuid, req.params.name);
    if (!role) throw notFound();
    return { data: role };
  }

  async delete(req: RequestOf<typeof pki.roleDelete>): Promise<ResponseOf<typeof pki.roleDelete>> {
    const name = req.params.name;
    await retryOnConflict(async () => {
      const doc = await this.docs.load<PkiRoleData | null>(req.mount.uuid, 'role', name);
      if (!doc) return;
      await this.log.append({ mountUuid: req.mount.uuid, kind: 'role', name, next: null }, doc.version, [
        { type: 'PkiRoleDeleted', data: {} },
      ]);
    });
    return {};
  }

  async list(req: RequestOf<typeof pki.roleList>): Promise<ResponseOf<typeof pki.roleList>> {
    return { data: { keys: await this.docs.names(req.mount.uuid, 'role') } };
  }
}
