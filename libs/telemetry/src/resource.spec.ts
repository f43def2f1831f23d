import { CODE_VERSION, resourceAttributes } from './resource';

describe('resourceAttributes', () => {
  it('names the process, its instance and the release', () => {
    expect(resourceAttributes({ serviceName: 'coffer-kv', instanceId: 'kv-host-1' })).toEqual({
      'service.name': 'coffer-kv',
      'service.namespace': 'coffer',
      'service.version': CODE_VERSION,
      'service.instance.id': 'kv-host-1',
    });
    const random = resourceAttributes({ serviceName: 'coffer-kv' })['service.instance.id'];
    expect(random).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('gives OTEL_SERVICE_NAME, then OTEL_RESOURCE_ATTRIBUTES, precedence', () => {
    const extra = {
      'service.name': 'from-attributes',
      'deployment.environment': 'prod',
      'service.version': '9',
    };
    expect(resourceAttributes({ serviceName: 'coffer-kv', extra, instanceId: 'i' })).toMatchObject({
      'service.name': 'from-attributes',
      'deployment.environment': 'prod',
      'service.version': '9',
    });
    expect(
      resourceAttributes({
        serviceName: 'coffer-kv',
        extra,
        serviceNameOverride: 'vault-kv',
        instanceId: 'i',
      })['service.name'],
    ).toBe('vault-kv');
  });
});
