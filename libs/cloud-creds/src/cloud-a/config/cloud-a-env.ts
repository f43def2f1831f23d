import { envValue, readProcessEnv, type Env } from '@coffer/config';

/**
 * The CLOUDA_* environment variables, which override a mount's stored config (Vault's AZURE_*):
 * CLOUDA_SUBSCRIPTION_ID, CLOUDA_TENANT_ID, CLOUDA_CLIENT_ID, CLOUDA_CLIENT_SECRET, CLOUDA_ENVIRONMENT.
 * Read once when the service starts.
 */
export class CloudAEnv {
  constructor(
    readonly subscriptionId?: string,
    readonly tenantId?: string,
    readonly clientId?: string,
    readonly clientSecret?: string,
    readonly environment?: string,
  ) {}

  static from(env: Env): CloudAEnv {
    return new CloudAEnv(
      envValue(env, 'CLOUDA_SUBSCRIPTION_ID'),
      envValue(env, 'CLOUDA_TENANT_ID'),
      envValue(env, 'CLOUDA_CLIENT_ID'),
      envValue(env, 'CLOUDA_CLIENT_SECRET'),
      envValue(env, 'CLOUDA_ENVIRONMENT'),
    );
  }

  static fromProcess(): CloudAEnv {
    return CloudAEnv.from(readProcessEnv());
  }
}
