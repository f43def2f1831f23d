import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { invalidRequest, type MountInfo, type RequestOf, type ResponseOf } from '@coffer/contracts';
import type { cloudA } from '@coffer/contracts/cloud-a';
import { isConcurrencyError, retryOnConflict, type ServiceRuntime } from '@coffer/event-store';
import { z } from 'zod';
import { CLOUD_CREDS_RUNTIME } from '../../cloud-creds.di';
import { asUpstream, newRoleAssignmentId, type CloudAAzure } from '../azure/cloud-a-azure';
import { upstream } from '../azure/cloud-a-http';
import { CLOUD_A_RETRY, CloudAConfigService } from '../config/cloud-a-config.service';
import type { CredentialPlan, CredentialProgress } from '../records/cloud-a-record.events';
import { CloudARecordStore, type CloudAVersioned } from '../records/cloud-a-record.store';

/** What a cloud-a lease keeps behind the barrier in core-sys: the credential's record. */
export const cloudALeaseSchema = z.object({ cred_id: z.string() });

/** Azure calls a creation makes besides one per role assignment and group (2 tokens, application, password, principal, one spare). */
const CREATION_BASE_CALLS = 6;
/** back-off of the eventual-consistency retries, and time to record each step */
const CREATION_SLACK_MS = 15_000;
/** Without a max TTL the password lives as long as the longest lease could (Vault's system max, 32 days). */
const DEFAULT_PASSWORD_LIFETIME_S = 32 * 24 * 3600;

/** The creation was taken over by the recovery pass (its deadline passed): stop, it undoes everything. */
class CreationTakenOver extends Error {}

/**
 * creds: a new application, password and service principal with the role's assignments and group
 * memberships (or a password on the role's static application), answered with a lease; the lease's
 * revocation undoes it. Creation is write-ahead (see cloud-a-record.events.ts), so a crash at any
 * point leaves a record the recovery pass can undo; a failed creation undoes what it made at once.
 */
@Injectable()
export class CloudACredsService {
  private readonly logger = new Logger('cloud-a.creds');

  constructor(
    @Inject(CLOUD_CREDS_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly store: CloudARecordStore,
    private readonly config: CloudAConfigService,
  ) {}

  async creds(req: RequestOf<typeof cloudA.creds>): Promise<ResponseOf<typeof cloudA.creds>> {
    const mountUuid = req.mount.uuid;
    const roleName = req.params.name;
    const role = await this.store.get(mountUuid, 'role', roleName);
    if (!role) throw invalidRequest(`role '${roleName}' does not exist`);
    const r = role.state.role;
    const azure = await this.config.azure(mountUuid);
    const now = this.runtime.clock();
    const credId = randomUUID();
    const isStatic = r.application_object_id !== '';
    const plan: CredentialPlan = {
      role: roleName,
      static: isStatic,
      display_name: `coffer-${roleName.slice(0, 60)}-${credId}`,
      application_object_id: r.application_object_id,
      assignments: isStatic
        ? []
        : r.roles.map((a) => ({ id: newRoleAssignmentId(a.scope), role_definition_id: a.role_id })),
      groups: isStatic ? [] : r.groups.map((g) => g.object_id),
      pending_until: '',
    };
    // each call is bounded by request_timeout: past this deadline the creation is the recovery pass's
    const calls = CREATION_BASE_CALLS + plan.assignments.length + plan.groups.length;
    plan.pending_until = new Date(now.getTime() + calls * azure.timeoutMs + CREATION_SLACK_MS).toISOString();
    let version = await this.store.append(mountUuid, 'cred', credId, 0, [
      { type: 'CloudACredentialIntended', data: plan },
    ]);
    const created: CredentialProgress = isStatic ? { application_object_id: r.application_object_id } : {};
    const record = async (progress: CredentialProgress): Promise<void> => {
      Object.assign(created, progress);
      try {
        version = await this.store.append(mountUuid, 'cred', credId, version, [
          { type: 'CloudACredentialProgressed', data: progress },
        ]);
      } catch (error) {
        if (isConcurrencyError(error)) throw new CreationTakenOver();
        throw error;
      }
    };
    const maxTtl = r.max_ttl || req.mount.config.max_lease_ttl || DEFAULT_PASSWORD_LIFETIME_S;
    const passwordEnd = new Date(now.getTime() + (maxTtl + 3600) * 1000);
    let clientId: string;
    let secret: string;
    try {
      if (isStatic) {
        clientId = r.application_id;
        const password = await azure.addPassword(r.application_object_id, plan.display_name, passwordEnd);
        secret = password.secret;
        await record({ key_id: password.keyId });
      } else {
        const app = await azure.createApplication(plan.display_name);
        await record({ application_object_id: app.objectId, app_id: app.appId });
        clientId = app.appId;
        const password = await azure.addPassword(app.objectId, 'coffer', passwordEnd);
        secret = password.secret;
        await record({ key_id: password.keyId });
        const spId = await azure.createServicePrincipal(app.appId);
        await record({ service_principal_id: spId });
        for (const assignment of plan.assignments)
          await azure.createRoleAssignment(assignment.id, assignment.role_definition_id, spId);
        for (const group of plan.groups) await azure.addGroupMember(group, spId);
      }
      version = await this.store.append(mountUuid, 'cred', credId, version, [
        { type: 'CloudACredentialIssued', data: { at: this.runtime.clock().toISOString() } },
      ]);
    } catch (error) {
      if (error instanceof CreationTakenOver || isConcurrencyError(error))
        throw upstream('the credential was not created in time: it is being removed');
      await this.undoFailed(mountUuid, credId, version, azure, plan, created);
      throw asUpstream(error);
    }
    return {
      data: { client_id: clientId, client_secret: secret },
      secret: { ttl: r.ttl, max_ttl: r.max_ttl, renewable: true, internal: { cred_id: credId } },
    };
  }

  /**
   * A failed creation undoes what it made now. The record stays (abandoned) until its deadline: a
   * call that timed out may still create its object in Azure afterwards, so the recovery pass
   * undoes it once more then, and forgets it.
   */
  private async undoFailed(
    mountUuid: string,
    credId: string,
    version: number,
    azure: CloudAAzure,
    plan: CredentialPlan,
    created: CredentialProgress,
  ): Promise<void> {
    try {
      await this.store.append(mountUuid, 'cred', credId, version, [
        { type: 'CloudACredentialAbandoned', data: { at: this.runtime.clock().toISOString() } },
      ]);
      await undoCredential(azure, plan, created);
    } catch (error) {
      this.logger.warn(
        `cloud-a credential ${credId}: clean-up after a failed creation left to the recovery pass: ${
          error instanceof Error ? error.message : 'unknown error'
        }`,
      );
    }
  }

  async renew(mount: MountInfo, internal: unknown): Promise<{ ttl: number; max_ttl: number }> {
    const lease = cloudALeaseSchema.parse(internal);
    const cred = await this.store.get(mount.uuid, 'cred', lease.cred_id);
    if (!cred) throw invalidRequest('error during renew: the credential no longer exists');
    const role = await this.store.get(mount.uuid, 'role', cred.state.plan.role);
    if (!role)
      throw invalidRequest(`error during renew: could not find role with name '${cred.state.plan.role}'`);
    return { ttl: role.state.role.ttl, max_ttl: role.state.role.max_ttl };
  }

  /** Idempotent (revocation is at-least-once): a credential already removed has nothing left to undo. */
  async revoke(mount: MountInfo, internal: unknown): Promise<void> {
    const lease = cloudALeaseSchema.parse(internal);
    await this.remove(mount.uuid, lease.cred_id);
  }

  /** Undoes a credential in Azure and forgets it (lease revocation and the recovery pass). */
  async remove(mountUuid: string, credId: string, onlyIfOverdue = false): Promise<boolean> {
    const cred = await this.store.get(mountUuid, 'cred', credId);
    if (!cred) return false;
    if (
      onlyIfOverdue &&
      (cred.state.phase === 'issued' ||
        cred.state.phase === 'leased' ||
        new Date(cred.state.plan.pending_until) > this.runtime.clock())
    )
      return false;
    const azure = await this.config.azure(mountUuid);
    let current: CloudAVersioned<'cred'> = cred;
    if (current.state.phase === 'creating') {
      // take the creation over first: its creator's next append fails and it stops creating
      await this.store.append(mountUuid, 'cred', credId, current.version, [
        { type: 'CloudACredentialAbandoned', data: { at: this.runtime.clock().toISOString() } },
      ]);
      current = { ...current, version: current.version + 1 };
    }
    try {
      await undoCredential(azure, current.state.plan, current.state.created);
    } catch (error) {
      throw asUpstream(error);
    }
    await retryOnConflict(async () => {
      const latest = await this.store.get(mountUuid, 'cred', credId);
      if (!latest) return;
      await this.store.append(mountUuid, 'cred', credId, latest.version, [
        { type: 'CloudACredentialRemoved', data: { at: this.runtime.clock().toISOString() } },
      ]);
    }, CLOUD_A_RETRY);
    return true;
  }
}

/**
 * Removes from Azure whatever a credential may have created: found by what was recorded, else by the
 * names chosen before creation (an object created just before a crash was never recorded). Every
 * step tolerates "already gone".
 */
export async function undoCredential(
  azure: CloudAAzure,
  plan: CredentialPlan,
  created: CredentialProgress,
): Promise<void> {
  if (plan.static) {
    let keyId = created.key_id;
    if (!keyId) {
      const app = await azure.getApplication(plan.application_object_id);
      keyId = app?.passwords.find((p) => p.displayName === plan.display_name)?.keyId;
    }
    if (keyId) await azure.removePassword(plan.application_object_id, keyId);
    return;
  }
  const apps = created.application_object_id
    ? [{ objectId: created.application_object_id, appId: created.app_id ?? '' }]
    : await azure.findApplications(plan.display_name);
  for (const assignment of plan.assignments) await azure.deleteRoleAssignment(assignment.id);
  for (const app of apps) {
    const spId =
      created.service_principal_id ?? (app.appId ? await azure.findServicePrincipal(app.appId) : undefined);
    if (spId) for (const group of plan.groups) await azure.removeGroupMember(group, spId);
    await azure.deleteApplication(app.objectId);
  }
}
