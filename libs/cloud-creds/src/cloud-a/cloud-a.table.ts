/**
 * cloud-a's read model in the cloud-creds schema: `cloud_a_records`, one row per config, role and
 * issued credential (its shape and repository: shared/cloud-record.*); the client secret of the
 * config lives in the barrier-encrypted state.
 */
export const CLOUD_A_RECORDS_TABLE = 'cloud_a_records';
export const CLOUD_A_RECORDS_PK = 'cloud_a_records_pk';
