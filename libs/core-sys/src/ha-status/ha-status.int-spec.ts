import { sysContracts } from '@coffer/contracts';
import { CoreSysHarness } from '../test-support/core-sys-harness';

jest.setTimeout(30_000);

let h: CoreSysHarness;

beforeAll(async () => {
  h = await CoreSysHarness.start('ha-status', 2);
  const init = await h.initialise(1, 1);
  await h.unseal(init.keys);
});

afterAll(async () => {
  await h?.close();
});

const nodes = async () =>
  (await h.sys(sysContracts.haStatus, { operation: 'read', path: 'ha-status' })).data?.nodes ?? [];

describe('sys/ha-status (two core-sys replicas)', () => {
  it('lists both replicas, the seal leader as the one active node', async () => {
    const res = await h.sys(sysContracts.haStatus, { operation: 'read', path: 'ha-status' });
    expect(res.kind).toBe('injected');
    const list = await nodes();
    expect(list).toHaveLength(2);
    expect(list.filter((n) => n.active_node)).toHaveLength(1);
    expect(list[0]).toMatchObject({
      active_node: true,
      last_echo: null,
      api_address: 'http://127.0.0.1:8200',
      version: '0.1.0',
      upgrade_version: '0.1.0',
      redundancy_zone: '',
    });
    expect(list[1]).toMatchObject({ active_node: false, last_echo: h.clock.now.toISOString() });
  });

  it('drops a replica that stops', async () => {
    await h.stopReplica(1);
    expect(await nodes()).toEqual([expect.objectContaining({ active_node: true })]);
  });
});
