import { randomUUID } from 'node:crypto';
import { Agent } from 'node:https';
import type { ClientSecretCredential } from '@azure/identity';
import { isDomainError } from '@coffer/contracts';
import { credentialFor, type CloudAConnection } from './cloud-a-credentials';
import { AzureStatusError, azureRequest, upstream, type AzureCall } from './cloud-a-http';

export type { CloudAConnection } from './cloud-a-credentials';

export interface CloudAApplication {
  objectId: string;
  appId: string;
}

export interface CloudARoleDefinition {
  id: string;
  roleName: string;
}

export interface CloudAGroup {
  objectId: string;
  displayName: string;
}

const ARM_API_VERSION = '2022-04-01';
/** Azure's replication lag: a just-created object may answer 404 for a few seconds. */
const CONSISTENCY_DELAYS_MS = [250, 500, 1000, 2000, 4000];

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const quote = (value: string): string => `'${value.replace(/'/g, "''")}'`;

function valuesOf(body: unknown): Record<string, unknown>[] {
  const value = (body as { value?: unknown } | undefined)?.value;
  return Array.isArray(value) ? (value as Record<string, unknown>[]) : [];
}
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Calls of Microsoft Graph and Azure Resource Manager as the configured service principal. */
export class CloudAAzure {
  private readonly agent: Agent | undefined;
  private readonly credential: Promise<ClientSecretCredential>;

  constructor(private readonly c: CloudAConnection) {
    const entry = credentialFor(c);
    this.credential = entry.credential;
    this.agent = entry.agent;
  }

  /** request_timeout of one call, in ms */
  get timeoutMs(): number {
    return this.c.timeoutMs;
  }

  private async token(resource: string): Promise<string> {
    try {
      const credential = await this.credential;
      const token = await credential.getToken(`${resource}/.default`, {
        abortSignal: AbortSignal.timeout(this.c.timeoutMs),
      });
      return token.token;
    } catch (error) {
      const message = error instanceof Error ? error.message.split('\n')[0] : 'unknown error';
      throw upstream(`failed to get a token from ${this.c.endpoints.authorityHost}: ${message}`);
    }
  }

  private async call(resource: 'graph' | 'arm', call: Omit<AzureCall, 'token' | 'timeoutMs' | 'agent'>) {
    const token = await this.token(
      resource === 'graph' ? this.c.endpoints.graph : this.c.endpoints.resourceManager,
    );
    return azureRequest({
      ...call,
      token,
      timeoutMs: this.c.timeoutMs,
      ...(this.agent ? { agent: this.agent } : {}),
    });
  }

  private graph(path: string): string {
    return `${this.c.endpoints.graph}/v1.0${path}`;
  }

  private arm(path: string, query = ''): string {
    return `${this.c.endpoints.resourceManager}${path}?api-version=${ARM_API_VERSION}${query}`;
  }

  /** Retries Azure's eventual consistency (404 right after a create) with back-off. */
  private async consistent<T>(run: () => Promise<T>): Promise<T> {
    for (const delay of CONSISTENCY_DELAYS_MS) {
      try {
        return await run();
      } catch (error) {
        if (!(error instanceof AzureStatusError) || error.status !== 404) throw error;
        await sleep(delay);
      }
    }
    return run();
  }

  /** A delete that finds nothing has nothing left to do. */
  private async gone(run: () => Promise<unknown>): Promise<void> {
    try {
      await run();
    } catch (error) {
      if (error instanceof AzureStatusError && error.status === 404) return;
      throw error;
    }
  }

  async getApplication(
    objectId: string,
  ): Promise<(CloudAApplication & { passwords: { keyId: string; displayName: string }[] }) | undefined> {
    try {
      const { body } = await this.call('graph', {
        method: 'GET',
        url: this.graph(`/applications/${encodeURIComponent(objectId)}`),
        what: 'load the application',
      });
      const app = body as Record<string, unknown>;
      const passwords = Array.isArray(app.passwordCredentials)
        ? (app.passwordCredentials as Record<string, unknown>[])
        : [];
      return {
        objectId: str(app.id),
        appId: str(app.appId),
        passwords: passwords.map((p) => ({ keyId: str(p.keyId), displayName: str(p.displayName) })),
      };
    } catch (error) {
      if (error instanceof AzureStatusError && (error.status === 404 || error.status === 400))
        return undefined;
      throw error;
    }
  }

  async findApplications(displayName: string): Promise<CloudAApplication[]> {
    const { body } = await this.call('graph', {
      method: 'GET',
      url: this.graph(`/applications?$filter=${encodeURIComponent(`displayName eq ${quote(displayName)}`)}`),
      what: 'list applications',
    });
    return valuesOf(body).map((app) => ({ objectId: str(app.id), appId: str(app.appId) }));
  }

  async createApplication(displayName: string): Promise<CloudAApplication> {
    const { body } = await this.call('graph', {
      method: 'POST',
      url: this.graph('/applications'),
      body: { displayName },
      what: 'create the application',
    });
    const app = body as Record<string, unknown>;
    return { objectId: str(app.id), appId: str(app.appId) };
  }

  async deleteApplication(objectId: string): Promise<void> {
    await this.gone(() =>
      this.call('graph', {
        method: 'DELETE',
        url: this.graph(`/applications/${encodeURIComponent(objectId)}`),
        what: 'delete the application',
      }),
    );
  }

  async addPassword(
    objectId: string,
    displayName: string,
    endDateTime: Date,
  ): Promise<{ keyId: string; secret: string }> {
    const { body } = await this.consistent(() =>
      this.call('graph', {
        method: 'POST',
        url: this.graph(`/applications/${encodeURIComponent(objectId)}/addPassword`),
        body: { passwordCredential: { displayName, endDateTime: endDateTime.toISOString() } },
        what: 'add a password to the application',
      }),
    );
    const answer = body as Record<string, unknown>;
    return { keyId: str(answer.keyId), secret: str(answer.secretText) };
  }

  async removePassword(objectId: string, keyId: string): Promise<void> {
    await this.gone(() =>
      this.call('graph', {
        method: 'POST',
        url: this.graph(`/applications/${encodeURIComponent(objectId)}/removePassword`),
        body: { keyId },
        what: 'remove the password from the application',
      }),
    );
  }

  async createServicePrincipal(appId: string): Promise<string> {
    const { body } = await this.consistent(() =>
      this.call('graph', {
        method: 'POST',
        url: this.graph('/servicePrincipals'),
        body: { appId },
        what: 'create the service principal',
      }),
    );
    return str((body as Record<string, unknown>).id);
  }

  async findServicePrincipal(appId: string): Promise<string | undefined> {
    const { body } = await this.call('graph', {
      method: 'GET',
      url: this.graph(`/servicePrincipals?$filter=${encodeURIComponent(`appId eq ${quote(appId)}`)}`),
      what: 'list service principals',
    });
    return valuesOf(body).map((sp) => str(sp.id))[0];
  }

  async getGroup(objectId: string): Promise<CloudAGroup | undefined> {
    try {
      const { body } = await this.call('graph', {
        method: 'GET',
        url: this.graph(`/groups/${encodeURIComponent(objectId)}`),
        what: 'load the group',
      });
      const group = body as Record<string, unknown>;
      return { objectId: str(group.id), displayName: str(group.displayName) };
    } catch (error) {
      if (error instanceof AzureStatusError && (error.status === 404 || error.status === 400))
        return undefined;
      throw error;
    }
  }

  async findGroups(displayName: string): Promise<CloudAGroup[]> {
    const { body } = await this.call('graph', {
      method: 'GET',
      url: this.graph(`/groups?$filter=${encodeURIComponent(`displayName eq ${quote(displayName)}`)}`),
      what: 'list groups',
    });
    return valuesOf(body).map((g) => ({ objectId: str(g.id), displayName: str(g.displayName) }));
  }

  async addGroupMember(groupId: string, principalId: string): Promise<void> {
    try {
      await this.consistent(() =>
        this.call('graph', {
          method: 'POST',
          url: this.graph(`/groups/${encodeURIComponent(groupId)}/members/$ref`),
          body: { '@odata.id': this.graph(`/directoryObjects/${principalId}`) },
          what: 'add the service principal to the group',
        }),
      );
    } catch (error) {
      // already a member (a retried step): Graph answers 400 "One or more added object references already exist"
      if (error instanceof AzureStatusError && error.status === 400 && /already exist/i.test(error.detail))
        return;
      throw error;
    }
  }

  async removeGroupMember(groupId: string, principalId: string): Promise<void> {
    await this.gone(() =>
      this.call('graph', {
        method: 'DELETE',
        url: this.graph(
          `/groups/${encodeURIComponent(groupId)}/members/${encodeURIComponent(principalId)}/$ref`,
        ),
        what: 'remove the service principal from the group',
      }),
    );
  }

  async getRoleDefinition(roleId: string): Promise<CloudARoleDefinition | undefined> {
    try {
      const { body } = await this.call('arm', {
        method: 'GET',
        url: this.arm(roleId),
        what: 'load the role definition',
      });
      const def = body as Record<string, unknown>;
      const properties = (def.properties ?? {}) as Record<string, unknown>;
      return { id: str(def.id), roleName: str(properties.roleName) };
    } catch (error) {
      if (error instanceof AzureStatusError && (error.status === 404 || error.status === 400))
        return undefined;
      throw error;
    }
  }

  async findRoleDefinitions(scope: string, roleName: string): Promise<CloudARoleDefinition[]> {
    const { body } = await this.call('arm', {
      method: 'GET',
      url: this.arm(
        `${scope.replace(/\/+$/, '')}/providers/Microsoft.Authorization/roleDefinitions`,
        `&$filter=${encodeURIComponent(`roleName eq ${quote(roleName)}`)}`,
      ),
      what: 'list role definitions',
    });
    return valuesOf(body).map((def) => ({
      id: str(def.id),
      roleName: str((def.properties as Record<string, unknown> | undefined)?.roleName),
    }));
  }

  /** PUT with a name chosen beforehand, so a retried or recovered step finds the same assignment. */
  async createRoleAssignment(
    assignmentId: string,
    roleDefinitionId: string,
    principalId: string,
    attempt = 0,
  ): Promise<void> {
    try {
      await this.consistent(() =>
        this.call('arm', {
          method: 'PUT',
          url: this.arm(assignmentId),
          body: { properties: { roleDefinitionId, principalId, principalType: 'ServicePrincipal' } },
          what: 'assign the role',
        }),
      );
    } catch (error) {
      // Azure's "PrincipalNotFound" (400) right after the principal's creation is eventual consistency too
      if (
        attempt < CONSISTENCY_DELAYS_MS.length &&
        error instanceof AzureStatusError &&
        error.status === 400 &&
        /PrincipalNotFound/.test(error.detail)
      ) {
        await sleep(CONSISTENCY_DELAYS_MS[attempt] ?? 1000);
        return this.createRoleAssignment(assignmentId, roleDefinitionId, principalId, attempt + 1);
      }
      if (error instanceof AzureStatusError && error.status === 409) return;
      throw error;
    }
  }

  async deleteRoleAssignment(assignmentId: string): Promise<void> {
    await this.gone(() =>
      this.call('arm', { method: 'DELETE', url: this.arm(assignmentId), what: 'remove the role assignment' }),
    );
  }
}

/** The id a role assignment gets at a scope: `<scope>/providers/Microsoft.Authorization/roleAssignments/<uuid>`. */
export const newRoleAssignmentId = (scope: string): string =>
  `${scope.replace(/\/+$/, '')}/providers/Microsoft.Authorization/roleAssignments/${randomUUID()}`;

/** An Azure failure as the caller sees it: 502 with what failed. */
export function asUpstream(error: unknown): unknown {
  if (error instanceof AzureStatusError) return upstream(error.message);
  if (isDomainError(error)) return error;
  return error;
}
