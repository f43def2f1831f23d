import type { RawEvent } from '@coffer/event-store';
import { filterEvents, type StreamFilter } from './stream-filter';

const row = (stream: string): RawEvent =>
  ({ wal: 1, stream, streamVersion: 1, type: 'T', schemaVersion: 1 }) as unknown as RawEvent;

const filter: StreamFilter = {
  excludedMountUuids: new Set(['m-out']),
  mounts: ['out/'],
  namespaces: ['team-b/'],
};

describe('filterEvents', () => {
  it('holds back the rows of excluded mounts (second segment), whatever the source', () => {
    const streamed = filterEvents(filter, [row('kv/m-out/a'), row('kv/m-in/a')], 'kv');
    expect(streamed.map((s) => s.filtered)).toEqual([true, false]);
  });

  it("holds back oidc's configuration of a filtered namespace and of namespaces inside it", () => {
    const rows = [
      row(`oidc-config/key/${encodeURIComponent('team-b/')}/k`),
      row(`oidc-config/client/${encodeURIComponent('team-b/child/')}/c`),
      row(`oidc-config/key/${encodeURIComponent('team-a/')}/k`),
      row('oidc-config/key/-/default'),
      row('oidc-code/abc'),
    ];
    expect(filterEvents(filter, rows, 'oidc').map((s) => s.filtered)).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    // another source's streams are not read as namespaced
    expect(filterEvents(filter, rows, 'pki').map((s) => s.filtered)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('streams everything without a filter (DR)', () => {
    expect(filterEvents(undefined, [row('kv/m-out/a')], 'kv')).toEqual([
      { row: row('kv/m-out/a'), filtered: false },
    ]);
  });
});
