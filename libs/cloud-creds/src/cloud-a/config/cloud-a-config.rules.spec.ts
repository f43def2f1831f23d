import { endpointsOf } from '../azure/cloud-a-endpoints';
import { cloudAConnection, mergeCloudAConfig, readableCloudAConfig } from './cloud-a-config.rules';
import { CloudAEnv } from './cloud-a-env';

const noEnv = CloudAEnv.from({});

describe('cloud-a config rules', () => {
  it('merges a write over the stored config and keeps what is not sent', () => {
    const first = mergeCloudAConfig(
      { subscription_id: 's', tenant_id: 't', client_secret: 'x' },
      undefined,
      noEnv,
    );
    expect(first).toMatchObject({
      subscription_id: 's',
      tenant_id: 't',
      client_secret: 'x',
      request_timeout: 60,
    });
    const second = mergeCloudAConfig({ client_id: 'c' }, first, noEnv);
    expect(second).toMatchObject({ subscription_id: 's', client_id: 'c', client_secret: 'x' });
    expect(readableCloudAConfig(second)).not.toHaveProperty('client_secret');
  });

  it('requires subscription_id and tenant_id unless the environment has them', () => {
    expect(() => mergeCloudAConfig({ tenant_id: 't' }, undefined, noEnv)).toThrow(
      'subscription_id is required',
    );
    expect(() => mergeCloudAConfig({ subscription_id: 's' }, undefined, noEnv)).toThrow(
      'tenant_id is required',
    );
    const env = CloudAEnv.from({ CLOUDA_SUBSCRIPTION_ID: 'es', CLOUDA_TENANT_ID: 'et' });
    expect(mergeCloudAConfig({}, undefined, env)).toMatchObject({ subscription_id: '', tenant_id: '' });
  });

  it("accepts Vault's environment names in any case and refuses others", () => {
    expect(
      mergeCloudAConfig(
        { subscription_id: 's', tenant_id: 't', environment: 'azurechinacloud' },
        undefined,
        noEnv,
      ).environment,
    ).toBe('azurechinacloud');
    expect(() =>
      mergeCloudAConfig(
        { subscription_id: 's', tenant_id: 't', environment: 'AzureGermanyCloud' },
        undefined,
        noEnv,
      ),
    ).toThrow('autorest/azure: There is no cloud environment matching the name "AZUREGERMANYCLOUD"');
    expect(() =>
      mergeCloudAConfig({ subscription_id: 's', tenant_id: 't', authority_host: 'nope' }, undefined, noEnv),
    ).toThrow('authority_host is not a valid URL: "nope"');
    expect(() =>
      mergeCloudAConfig({ subscription_id: 's', tenant_id: 't', ca_certificate: 'junk' }, undefined, noEnv),
    ).toThrow('ca_certificate must hold PEM certificates');
  });

  it('lets CLOUDA_* variables override stored values', () => {
    const stored = mergeCloudAConfig(
      { subscription_id: 's', tenant_id: 't', client_id: 'c', client_secret: 'x' },
      undefined,
      noEnv,
    );
    const env = CloudAEnv.from({
      CLOUDA_SUBSCRIPTION_ID: 'es',
      CLOUDA_TENANT_ID: 'et',
      CLOUDA_CLIENT_ID: 'ec',
      CLOUDA_CLIENT_SECRET: 'ex',
      CLOUDA_ENVIRONMENT: 'AzureUSGovernmentCloud',
    });
    expect(cloudAConnection(stored, env)).toMatchObject({
      subscriptionId: 'es',
      tenantId: 'et',
      clientId: 'ec',
      clientSecret: 'ex',
      endpoints: { authorityHost: 'https://login.microsoftonline.us', graph: 'https://graph.microsoft.us' },
    });
    expect(cloudAConnection(stored, CloudAEnv.from({ CLOUDA_CLIENT_ID: '' })).clientId).toBe('c');
    expect(() => cloudAConnection(undefined, noEnv)).toThrow('the cloud-a engine is not configured');
  });

  it('overrides the environment’s endpoints one by one; a custom authority turns instance discovery off', () => {
    const base = { environment: '', authority_host: '', graph_endpoint: '', resource_manager_endpoint: '' };
    expect(endpointsOf(base)).toEqual({
      authorityHost: 'https://login.microsoftonline.com',
      graph: 'https://graph.microsoft.com',
      resourceManager: 'https://management.azure.com',
      customAuthority: false,
    });
    expect(
      endpointsOf({ ...base, environment: 'AzureChinaCloud', authority_host: 'https://login.stack.local/' }),
    ).toEqual({
      authorityHost: 'https://login.stack.local',
      graph: 'https://microsoftgraph.chinacloudapi.cn',
      resourceManager: 'https://management.chinacloudapi.cn',
      customAuthority: true,
    });
  });
});
