import { AssumeRoleCommand, GetFederationTokenCommand, type Credentials } from '@aws-sdk/client-sts';
import { Inject, Injectable } from '@nestjs/common';
import { invalidRequest, type CallerContext, type RequestOf, type ResponseOf } from '@coffer/contracts';
import type { cloudB } from '@coffer/contracts/cloud-b';
import { isConcurrencyError, type ServiceRuntime } from '@coffer/event-store';
import { CLOUD_CREDS_RUNTIME } from '../../cloud-creds.di';
import { cloudBClients, upstream, type CloudBClients } from '../aws/cloud-b-clients';
import { CLOUD_B_ENVIRONMENT, type CloudBEnvironment } from '../aws/cloud-b-environment';
import { combinePolicyDocuments, createIamUser, groupPolicies } from '../aws/cloud-b-iam-users';
import type { RoleEntry } from '../records/cloud-b-record.events';
import { CloudBRecordStore } from '../records/cloud-b-record.store';
import {
  ASSUMED_ROLE,
  credentialTypeFor,
  FEDERATION_TOKEN,
  IAM_USER,
  roleArnFor,
  RoleRefusal,
  stsTtl,
  type CredsPath,
} from '../roles/cloud-b-role.rules';
import { CloudBUserRemoval } from './cloud-b-user-removal.service';
import type { CloudBLease } from './cloud-b-lease';
import { federationName, iamUserName, sessionName } from './cloud-b-names';

type Creds = RequestOf<typeof cloudB.creds>;
type Answer = ResponseOf<typeof cloudB.creds>;

/** Vault's system max lease TTL (768h), the STS cap when neither the role nor the mount sets one. */
const SYSTEM_MAX_TTL = 768 * 3600;

/** creds/:name and sts/:name: IAM users, assumed-role sessions, federation tokens. */
@Injectable()
export class CloudBCredsService {
  constructor(
    private readonly store: CloudBRecordStore,
    private readonly removal: CloudBUserRemoval,
    @Inject(CLOUD_B_ENVIRONMENT) private readonly env: CloudBEnvironment,
    @Inject(CLOUD_CREDS_RUNTIME) private readonly runtime: ServiceRuntime,
  ) {}

  async issue(req: Creds, caller: CallerContext | undefined, path: CredsPath): Promise<Answer> {
    const roleName = req.params.name;
    const role = await this.store.get(req.mount.uuid, 'role', roleName);
    if (!role) throw invalidRequest(`Role ${JSON.stringify(roleName)} not found`);
    const fields = {
      role_arn: req.body.role_arn ?? req.query.role_arn ?? '',
      role_session_name: req.body.role_session_name ?? req.query.role_session_name ?? '',
      ttl: req.body.ttl ?? req.query.ttl,
    };
    let type: string;
    let roleArn = '';
    try {
      type = credentialTypeFor(role.state, roleName, path);
      if (type === ASSUMED_ROLE) roleArn = roleArnFor(role.state, roleName, fields.role_arn);
    } catch (error) {
      if (error instanceof RoleRefusal) throw invalidRequest(error.message);
      throw error;
    }
    const root = await this.store.get(req.mount.uuid, 'root', 'root');
    const clients = cloudBClients(root?.state, this.env);
    try {
      const displayName = caller?.displayName ?? '';
      if (type === IAM_USER) return await this.iamUser(req, clients, roleName, role.state, displayName);
      const systemMax = req.mount.config.max_lease_ttl > 0 ? req.mount.config.max_lease_ttl : SYSTEM_MAX_TTL;
      const ttl = stsTtl(role.state, fields.ttl, systemMax);
      if (type === ASSUMED_ROLE)
        return await this.assumeRole(
          clients,
          roleName,
          role.state,
          roleArn,
          ttl,
          fields.role_session_name,
          displayName,
        );
      if (type === FEDERATION_TOKEN) return await this.federationToken(clients, role.state, ttl);
      throw invalidRequest(`unknown credential_type: ${JSON.stringify(type)}`);
    } finally {
      clients.destroy();
    }
  }

  /**
   * Write-ahead: the user's name is in the log before IAM hears of it; `UserIssued` is appended
   * once it has every part, right before the answer. Any failure removes what was created; a
   * removal that fails too is left to the recovery pass (the user stays recorded as intended).
   */
  private async iamUser(
    req: Creds,
    clients: CloudBClients,
    roleName: string,
    role: RoleEntry,
    displayName: string,
  ): Promise<Answer> {
    const mountUuid = req.mount.uuid;
    const now = this.runtime.clock();
    const { name: userName, warning } = iamUserName(displayName, roleName, now);
    await this.store.append(mountUuid, 'user', userName, 0, [
      { type: 'CloudBUserIntended', data: { role: roleName, at: now.toISOString() } },
    ]);
    let issued;
    try {
      issued = await createIamUser(clients.iam, userName, roleName, role, {
        abortSignal: AbortSignal.timeout(clients.deadlineMs),
      });
      await this.store.append(mountUuid, 'user', userName, 1, [
        { type: 'CloudBUserIssued', data: { at: this.runtime.clock().toISOString() } },
      ]);
    } catch (error) {
      await this.removal.remove(mountUuid, userName).catch(() => undefined);
      if (isConcurrencyError(error))
        throw upstream('Error creating IAM user', new Error('the user was taken over by the recovery pass'));
      throw error;
    }
    const lease = await this.store.get(mountUuid, 'lease', 'lease');
    const internal: CloudBLease = { username: userName, is_sts: false, role: roleName };
    return {
      data: {
        access_key: issued.access_key,
        secret_key: issued.secret_key,
        security_token: null,
        session_token: null,
        arn: issued.arn,
      },
      ...(warning ? { warnings: [warning] } : {}),
      secret: {
        ttl: lease?.state.lease ?? 0,
        max_ttl: lease?.state.lease_max ?? 0,
        renewable: true,
        internal,
      },
    };
  }

  private async assumeRole(
    clients: CloudBClients,
    roleName: string,
    role: RoleEntry,
    roleArn: string,
    ttl: number,
    askedSession: string,
    displayName: string,
  ): Promise<Answer> {
    const now = this.runtime.clock();
    const session = askedSession === '' ? iamUserName(displayName, roleName, now) : sessionName(askedSession);
    const opts = { abortSignal: AbortSignal.timeout(clients.deadlineMs) };
    const policy = await this.stsPolicy(clients, role, opts);
    const answer = await clients.sts
      .send(
        new AssumeRoleCommand({
          RoleArn: roleArn,
          RoleSessionName: session.name,
          DurationSeconds: ttl,
          ...(policy.document !== '' ? { Policy: policy.document } : {}),
          ...(policy.arns.length > 0 ? { PolicyArns: policy.arns.map((arn) => ({ arn })) } : {}),
        }),
        opts,
      )
      .catch((error: unknown) => {
        throw upstream('Error assuming role', error);
      });
    return this.stsAnswer(
      answer.Credentials,
      answer.AssumedRoleUser?.Arn ?? '',
      session.name,
      session.warning,
    );
  }

  private async federationToken(clients: CloudBClients, role: RoleEntry, ttl: number): Promise<Answer> {
    const opts = { abortSignal: AbortSignal.timeout(clients.deadlineMs) };
    const policy = await this.stsPolicy(clients, role, opts);
    if (policy.document === '' && policy.arns.length === 0)
      throw invalidRequest(
        `must specify at least one of policy_arns or policy_document with ${FEDERATION_TOKEN} credential_type`,
      );
    const name = federationName(this.runtime.clock());
    const answer = await clients.sts
      .send(
        new GetFederationTokenCommand({
          Name: name,
          DurationSeconds: ttl,
          ...(policy.document !== '' ? { Policy: policy.document } : {}),
          ...(policy.arns.length > 0 ? { PolicyArns: policy.arns.map((arn) => ({ arn })) } : {}),
        }),
        opts,
      )
      .catch((error: unknown) => {
        throw upstream('Error generating STS keys', error);
      });
    return this.stsAnswer(answer.Credentials, answer.FederatedUser?.Arn ?? '', name);
  }

  /** The role's policies plus those of its IAM groups (inline documents merged into one). */
  private async stsPolicy(
    clients: CloudBClients,
    role: RoleEntry,
    opts: { abortSignal: AbortSignal },
  ): Promise<{ document: string; arns: string[] }> {
    const groups = role.iam_groups ?? [];
    if (groups.length === 0) return { document: role.policy_document, arns: role.policy_arns ?? [] };
    const fromGroups = await groupPolicies(clients.iam, groups, opts);
    const arns = [...new Set([...(role.policy_arns ?? []), ...fromGroups.arns])];
    return { document: combinePolicyDocuments([role.policy_document, ...fromGroups.documents]), arns };
  }

  /** STS credentials: a lease running to their expiry, not renewable, nothing to revoke. */
  private stsAnswer(
    credentials: Credentials | undefined,
    arn: string,
    username: string,
    warning?: string,
  ): Answer {
    if (!credentials?.AccessKeyId || !credentials.SecretAccessKey || !credentials.SessionToken)
      throw upstream('Error generating STS keys', new Error('STS answered no credentials'));
    const expiry = credentials.Expiration?.getTime() ?? this.runtime.clock().getTime();
    const ttl = Math.max(0, Math.floor((expiry - this.runtime.clock().getTime()) / 1000));
    const internal: CloudBLease = { username, is_sts: true };
    return {
      data: {
        access_key: credentials.AccessKeyId,
        secret_key: credentials.SecretAccessKey,
        security_token: credentials.SessionToken,
        session_token: credentials.SessionToken,
        arn,
        ttl,
      },
      ...(warning ? { warnings: [warning] } : {}),
      secret: { ttl, renewable: false, internal },
    };
  }
}
