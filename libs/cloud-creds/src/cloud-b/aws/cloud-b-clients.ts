import { IAMClient, NoSuchEntityException } from '@aws-sdk/client-iam';
import { STSClient } from '@aws-sdk/client-sts';
import { DomainError } from '@coffer/contracts';
import type { RootSettings } from '../records/cloud-b-record.events';
import type { CloudBEnvironment } from './cloud-b-environment';

/**
 * Default of config/root `request_timeout`: seconds one request's calls to IAM or STS may take.
 * A failed creds request then spends as long again removing what it created, and both together
 * must end before the gateway's engine timeout (10 s by default) for the caller to get the 502.
 */
export const CLOUD_B_REQUEST_TIMEOUT_S = 4;

/** A failed call to IAM or STS: 502 with the context and AWS's own text (never a secret). */
export class CloudBUpstreamError extends DomainError {
  constructor(message: string) {
    super('upstream_error', message);
  }
}

const reason = (error: unknown): string => {
  if (!(error instanceof Error)) return 'unknown error';
  if (error.name === 'TimeoutError' || error.name === 'AbortError' || /timed? ?out/i.test(error.message))
    return `no answer in time (${error.message})`;
  const code = (error as { Code?: unknown }).Code;
  const name = typeof code === 'string' ? code : error.name.replace(/Exception$/, '');
  return name && name !== 'Error' ? `${name}: ${error.message}` : error.message;
};

/** Wraps an SDK failure in a 502 ("Error creating IAM user: EntityAlreadyExists: ..."). */
export function upstream(context: string, error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  return new CloudBUpstreamError(`${context}: ${reason(error)}`);
}

export const isNoSuchEntity = (error: unknown): boolean =>
  error instanceof NoSuchEntityException ||
  (error instanceof Error &&
    (error.name === 'NoSuchEntity' || (error as { Code?: unknown }).Code === 'NoSuchEntity'));

/** The region: the config's, else CLOUDB_REGION, else CLOUDB_DEFAULT_REGION, else us-east-1. */
export function regionOf(root: RootSettings | undefined, env: CloudBEnvironment): string {
  return root?.region || env.region || env.defaultRegion || 'us-east-1';
}

/**
 * Credentials: the config's keys, else CLOUDB_ACCESS_KEY / CLOUDB_SECRET_KEY, else undefined
 * (the SDK's default chain: shared credentials file, then the container or instance role).
 */
function credentialsOf(root: RootSettings | undefined, env: CloudBEnvironment) {
  if (root && root.access_key !== '' && root.secret_key !== '')
    return { accessKeyId: root.access_key, secretAccessKey: root.secret_key };
  if (env.accessKey && env.secretKey)
    return {
      accessKeyId: env.accessKey,
      secretAccessKey: env.secretKey,
      ...(env.sessionToken ? { sessionToken: env.sessionToken } : {}),
    };
  return undefined;
}

export interface CloudBClients {
  iam: IAMClient;
  sts: STSClient;
  /** the deadline of one engine operation (every call of a creds request together) */
  deadlineMs: number;
  destroy(): void;
}

/** IAM and STS clients for a mount's root config: endpoints, region, retries and timeouts honoured. */
export function cloudBClients(root: RootSettings | undefined, env: CloudBEnvironment): CloudBClients {
  const credentials = credentialsOf(root, env);
  const timeoutMs = (root?.request_timeout ?? CLOUD_B_REQUEST_TIMEOUT_S) * 1000;
  const common = {
    region: regionOf(root, env),
    ...(credentials ? { credentials } : {}),
    // max_retries -1: the SDK's default (3 attempts)
    ...(root && root.max_retries >= 0 ? { maxAttempts: root.max_retries + 1 } : {}),
    requestHandler: { connectionTimeout: timeoutMs, requestTimeout: timeoutMs },
  };
  const iam = new IAMClient({ ...common, ...(root?.iam_endpoint ? { endpoint: root.iam_endpoint } : {}) });
  const sts = new STSClient({ ...common, ...(root?.sts_endpoint ? { endpoint: root.sts_endpoint } : {}) });
  return {
    iam,
    sts,
    deadlineMs: timeoutMs,
    destroy: () => {
      iam.destroy();
      sts.destroy();
    },
  };
}
