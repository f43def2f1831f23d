import { engineHistoryState } from '@coffer/contracts';
import { historyInstant } from '@coffer/testing';
import { cloudA } from '@coffer/contracts/cloud-a';
import { startCloudAHarness, type CloudAHarness } from './test-support/cloud-a-harness';

jest.setTimeout(90_000);

/**
 * cloud-a's history of its paths (`cloud-creds.history.state`), on real Postgres and NATS against
 * the local Azure: each answer is compared with what the live read said at that instant.
 */
describe('cloud-a history (Postgres, NATS, local Azure over HTTPS)', () => {
  let h: CloudAHarness;

  beforeAll(async () => {
    h = await startCloudAHarness('cloud-a-history-int');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers config, roles/<name> and the roles LIST as the live reads did at each instant', async () => {
    const read = (
      contract: Parameters<CloudAHarness['call']>[0],
      operation: string,
      path: string,
      params = {},
    ) =>
      h.call(contract, operation, path, {}, params).then(
        (res: { data: unknown }) => res.data,
        () => null,
      );
    const live = async () => ({
      config: await read(cloudA.configRead, 'read', 'config'),
      role: await read(cloudA.roleRead, 'read', 'roles/r', { name: 'r' }),
      roles: await read(cloudA.roleList, 'list', 'roles'),
    });
    const instant = async () => {
      const at = await historyInstant();
      return { at, ...(await live()) };
    };
    const past = (at: string, path: string) =>
      h.client.request(engineHistoryState('cloud-creds'), {
        mount_uuid: h.mount.uuid,
        mount_type: 'cloud-a',
        mount_options: {},
        path,
        query: {},
        at,
        values: true,
      });
    const scope = `/subscriptions/${h.azure.subscriptionId}`;
    const role = (name: string, body: object) =>
      h.call(cloudA.roleWrite, 'update', `roles/${name}`, body, { name });

    const steps = [await instant()];
    await h.configure();
    await role('r', { cloud_a_roles: JSON.stringify([{ role_name: 'Reader', scope }]), ttl: '1h' });
    steps.push(await instant());
    await h.configure({ password_policy: 'history' });
    await role('r', { cloud_a_groups: JSON.stringify([{ group_name: 'deployers' }]), ttl: '2h' });
    await role('q', { cloud_a_groups: JSON.stringify([{ group_name: 'deployers' }]) });
    steps.push(await instant());
    await h.call(cloudA.roleDelete, 'delete', 'roles/r', {}, { name: 'r' });
    steps.push(await instant());
    await h.call(cloudA.roleDelete, 'delete', 'roles/q', {}, { name: 'q' });
    await h.call(cloudA.configDelete, 'delete', 'config');
    steps.push(await instant());

    expect(steps[1]?.role).toMatchObject({ ttl: 3600, cloud_a_groups: null });
    expect(steps[2]?.role).toMatchObject({ ttl: 7200, cloud_a_groups: [{ group_name: 'deployers' }] });
    expect(steps[2]?.config).toMatchObject({ password_policy: 'history' });
    expect(steps[2]?.roles).toEqual({ keys: ['q', 'r'] });
    for (const then of steps) {
      const answers: Record<string, unknown> = {};
      for (const [key, path] of [
        ['config', 'config'],
        ['role', 'roles/r'],
        ['roles', 'roles'],
      ] as const) {
        const answer = await past(then.at, path);
        expect(JSON.stringify(answer)).not.toContain(h.azure.clientSecret);
        answers[key] = answer.found ? answer.state : null;
      }
      const { at, ...expected } = then;
      expect({ at, ...answers }).toEqual({ at, ...expected });
    }
    await expect(past(new Date().toISOString(), 'creds/r')).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });
});
