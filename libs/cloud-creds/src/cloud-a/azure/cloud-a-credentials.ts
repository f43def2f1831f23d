import { createHash } from 'node:crypto';
import { Agent } from 'node:https';
import { rootCertificates } from 'node:tls';
import type { ClientSecretCredential } from '@azure/identity';
import type { CloudAEndpoints } from './cloud-a-endpoints';

/** Everything needed to talk to one tenant: the effective config (environment overrides applied). */
export interface CloudAConnection {
  subscriptionId: string;
  tenantId: string;
  clientId: string;
  clientSecret: string;
  endpoints: CloudAEndpoints;
  caCertificate: string;
  timeoutMs: number;
}

export interface CredentialEntry {
  credential: Promise<ClientSecretCredential>;
  agent?: Agent;
}

/**
 * Cached per connection (tenant, client, secret digest, authority, CA): MSAL keeps its token cache
 * in the credential, so tokens are reused until they expire.
 */
const credentials = new Map<string, CredentialEntry>();

/**
 * @azure/identity (about 250 modules, the largest SDK of a process) is loaded on the first
 * credential: only a mount configured for Azure ever needs it, and every process would otherwise
 * pay it at start.
 */
async function newCredential(c: CloudAConnection, agent: Agent | undefined): Promise<ClientSecretCredential> {
  const { ClientSecretCredential } = await import('@azure/identity');
  return new ClientSecretCredential(c.tenantId, c.clientId, c.clientSecret, {
    authorityHost: c.endpoints.authorityHost,
    // Azure Stack and private clouds: MSAL's instance discovery only knows Microsoft's clouds.
    disableInstanceDiscovery: c.endpoints.customAuthority,
    ...(agent ? { agent } : {}),
    retryOptions: { maxRetries: 1 },
  });
}

export function credentialFor(c: CloudAConnection): CredentialEntry {
  const key = createHash('sha256')
    .update(
      JSON.stringify([c.tenantId, c.clientId, c.clientSecret, c.endpoints.authorityHost, c.caCertificate]),
    )
    .digest('hex');
  let entry = credentials.get(key);
  if (!entry) {
    // A mount's own CA adds to the bundled roots (an https Agent's `ca` replaces them otherwise).
    const agent = c.caCertificate
      ? new Agent({ ca: [...rootCertificates, c.caCertificate], keepAlive: true })
      : undefined;
    const credential = newCredential(c, agent);
    // awaited by every token request; a connection never used must not leave a rejection unhandled
    credential.catch(() => undefined);
    if (credentials.size > 64) credentials.clear();
    entry = { credential, ...(agent ? { agent } : {}) };
    credentials.set(key, entry);
  }
  return entry;
}
