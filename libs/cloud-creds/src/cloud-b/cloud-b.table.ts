/**
 * cloud-b's read model in the cloud-creds schema: `cloud_b_records`, one row per root config,
 * lease config, role and IAM user Coffer created (its shape and repository: shared/cloud-record.*);
 * the root secret key lives in the barrier-encrypted state.
 */
export const CLOUD_B_RECORDS_TABLE = 'cloud_b_records';
export const CLOUD_B_RECORDS_PK = 'cloud_b_records_pk';
