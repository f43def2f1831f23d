import { HA_NODE_STALE_MS, haNodesView, type HaNodeRecord } from './ha-node.model';

const now = new Date('2026-01-01T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const node = (nodeId: string, active: boolean, lastEcho: Date, host = nodeId): HaNodeRecord => ({
  nodeId,
  hostname: host,
  apiAddress: 'http://127.0.0.1:8200',
  clusterAddress: '',
  version: '0.1.0',
  active,
  lastEcho,
});

describe('haNodesView', () => {
  it('lists the live nodes, the active one first with no last echo', () => {
    const view = haNodesView(
      [node('b', false, ago(1000)), node('a', true, ago(2000)), node('c', false, ago(10))],
      now,
    );
    expect(view.map((n) => [n.hostname, n.active_node, n.last_echo])).toEqual([
      ['a', true, null],
      ['b', false, ago(1000).toISOString()],
      ['c', false, ago(10).toISOString()],
    ]);
    expect(view[0]).toEqual({
      hostname: 'a',
      api_address: 'http://127.0.0.1:8200',
      cluster_address: '',
      active_node: true,
      last_echo: null,
      version: '0.1.0',
      upgrade_version: '0.1.0',
      redundancy_zone: '',
    });
  });

  it('drops nodes silent for three heartbeats', () => {
    const view = haNodesView(
      [node('a', true, ago(100)), node('gone', false, ago(HA_NODE_STALE_MS + 1))],
      now,
    );
    expect(view.map((n) => n.hostname)).toEqual(['a']);
  });

  it('takes the newer claim when a lost leader has not said so yet', () => {
    const view = haNodesView([node('old', true, ago(4000)), node('new', true, ago(500))], now);
    expect(view.map((n) => [n.hostname, n.active_node])).toEqual([
      ['new', true],
      ['old', false],
    ]);
  });

  it('lists no active node when none is alive', () => {
    expect(haNodesView([node('a', false, ago(10))], now).map((n) => n.active_node)).toEqual([false]);
  });
});
