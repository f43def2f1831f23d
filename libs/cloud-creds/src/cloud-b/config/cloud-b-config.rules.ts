import { formatDuration } from '@coffer/contracts';
import type { cloudBLeaseReadSchema, cloudBRootConfigReadSchema } from '@coffer/contracts/cloud-b';
import type { z } from 'zod';
import type { CloudBStateOf } from '../records/cloud-b-record.state';

/** config/root as its read answers it (the live read and its history): never the secret key. */
export function cloudBRootView(root: CloudBStateOf<'root'>): z.output<typeof cloudBRootConfigReadSchema> {
  const { access_key, region, iam_endpoint, sts_endpoint, max_retries, request_timeout } = root;
  return { access_key, region, iam_endpoint, sts_endpoint, max_retries, request_timeout };
}

/** config/lease as its read answers it. */
export function cloudBLeaseView(lease: CloudBStateOf<'lease'>): z.output<typeof cloudBLeaseReadSchema> {
  return { lease: formatDuration(lease.lease), lease_max: formatDuration(lease.lease_max) };
}
