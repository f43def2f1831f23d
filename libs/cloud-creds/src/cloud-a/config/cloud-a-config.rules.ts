import { X509Certificate } from 'node:crypto';
import { invalidRequest } from '@coffer/contracts';
import type { cloudAConfigBodySchema } from '@coffer/contracts/cloud-a';
import type { z } from 'zod';
import type { CloudAConnection } from '../azure/cloud-a-azure';
import { endpointsOf, environmentNamed, unknownEnvironment } from '../azure/cloud-a-endpoints';
import type { CloudASettings } from '../records/cloud-a-record.events';
import type { CloudAEnv } from './cloud-a-env';

/** a write's fields (absent = not sent) */
type ConfigBody = Partial<z.output<typeof cloudAConfigBodySchema>>;

export const DEFAULT_REQUEST_TIMEOUT = 60;

const EMPTY: CloudASettings = {
  subscription_id: '',
  tenant_id: '',
  client_id: '',
  client_secret: '',
  environment: '',
  password_policy: '',
  authority_host: '',
  graph_endpoint: '',
  resource_manager_endpoint: '',
  ca_certificate: '',
  request_timeout: DEFAULT_REQUEST_TIMEOUT,
};

function checkHttpsUrl(field: string, value: string): void {
  if (value === '') return;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidRequest(`${field} is not a valid URL: "${value}"`);
  }
  if (url.protocol !== 'https:') throw invalidRequest(`${field} must be an https URL`);
}

function checkCertificates(pem: string): void {
  if (pem === '') return;
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw invalidRequest('ca_certificate must hold PEM certificates');
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch {
      throw invalidRequest('ca_certificate holds a certificate that does not parse');
    }
  }
}

/**
 * A config write: the fields sent replace the stored ones (a first write starts from the defaults).
 * Credentials are not checked against Azure (as Vault); subscription_id and tenant_id must be known,
 * from the write, the stored config or the environment.
 */
export function mergeCloudAConfig(
  body: ConfigBody,
  existing: CloudASettings | undefined,
  env: CloudAEnv,
): CloudASettings {
  const next: CloudASettings = { ...EMPTY, ...existing };
  for (const key of Object.keys(EMPTY) as (keyof CloudASettings)[]) {
    const value = body[key];
    if (value !== undefined) (next as Record<string, unknown>)[key] = value;
  }
  if (body.request_timeout === 0) next.request_timeout = DEFAULT_REQUEST_TIMEOUT;
  if (next.request_timeout < 0) throw invalidRequest('request_timeout must not be negative');
  if (next.subscription_id === '' && !env.subscriptionId) throw invalidRequest('subscription_id is required');
  if (next.tenant_id === '' && !env.tenantId) throw invalidRequest('tenant_id is required');
  if (!environmentNamed(next.environment)) throw invalidRequest(unknownEnvironment(next.environment));
  checkHttpsUrl('authority_host', next.authority_host);
  checkHttpsUrl('graph_endpoint', next.graph_endpoint);
  checkHttpsUrl('resource_manager_endpoint', next.resource_manager_endpoint);
  checkCertificates(next.ca_certificate);
  return next;
}

/** What the engine connects with: each CLOUDA_* variable overrides its stored value. */
export function cloudAConnection(settings: CloudASettings | undefined, env: CloudAEnv): CloudAConnection {
  const s = { ...EMPTY, ...settings };
  const environment = env.environment ?? s.environment;
  if (!environmentNamed(environment)) throw invalidRequest(unknownEnvironment(environment));
  const subscriptionId = env.subscriptionId ?? s.subscription_id;
  const tenantId = env.tenantId ?? s.tenant_id;
  if (!settings && (!subscriptionId || !tenantId))
    throw invalidRequest('the cloud-a engine is not configured: write its config first');
  if (!tenantId) throw invalidRequest('tenant_id is required');
  return {
    subscriptionId,
    tenantId,
    clientId: env.clientId ?? s.client_id,
    clientSecret: env.clientSecret ?? s.client_secret,
    endpoints: endpointsOf({ ...s, environment }),
    caCertificate: s.ca_certificate,
    timeoutMs: s.request_timeout * 1000,
  };
}

/** Never the client secret. */
export function readableCloudAConfig(settings: CloudASettings): Omit<CloudASettings, 'client_secret'> {
  const { client_secret: _secret, ...rest } = settings;
  return rest;
}
