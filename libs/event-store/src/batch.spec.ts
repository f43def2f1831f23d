import { chainRows, toAppended, versionConflicts } from './batch';
import { chainHash, GENESIS_HASH } from './hash';

const at = new Date('2024-01-01T00:00:00Z');
const event = (n: number) => ({ type: 'SecretWritten', version: 1, data: { n } });

describe('versionConflicts', () => {
  it('accepts "any" and the exact version only', () => {
    expect(versionConflicts('any', 7)).toBe(false);
    expect(versionConflicts(0, 0)).toBe(false);
    expect(versionConflicts(3, 3)).toBe(false);
    expect(versionConflicts(0, 1)).toBe(true);
    expect(versionConflicts(2, 1)).toBe(true);
  });
});

describe('toAppended', () => {
  it('numbers the events after the current stream version', () => {
    const appended = toAppended('s', [event(1), event(2)], 4, at);
    expect(appended).toEqual([
      {
        stream: 's',
        streamVersion: 5,
        type: 'SecretWritten',
        schemaVersion: 1,
        data: { n: 1 },
        recordedAt: at,
      },
      {
        stream: 's',
        streamVersion: 6,
        type: 'SecretWritten',
        schemaVersion: 1,
        data: { n: 2 },
        recordedAt: at,
      },
    ]);
    expect(toAppended('s', [], 4, at)).toEqual([]);
  });
});

describe('chainRows', () => {
  const a = toAppended('a', [event(1), event(2)], 0, at);
  const b = toAppended('b', [event(3)], 9, at);
  const inputs = [
    { appended: a, payloads: [Buffer.from([1]), Buffer.from([2])] },
    { appended: b, payloads: [Buffer.from([3])] },
  ];

  it('continues the log after its head, in input order, with a chained hash per event', () => {
    const head = { lastWal: 41, hash: 'f'.repeat(64) };
    const { rows, stored, head: next } = chainRows(head, inputs);
    expect(rows.map((r) => [r.wal, r.stream, r.stream_version])).toEqual([
      [42, 'a', 1],
      [43, 'a', 2],
      [44, 'b', 10],
    ]);
    let prev = head.hash;
    for (const row of rows) {
      expect(row.hash).toBe(
        chainHash(prev, {
          wal: row.wal,
          stream: row.stream,
          streamVersion: row.stream_version,
          type: row.type,
          schemaVersion: row.schema_version,
          payload: row.payload,
        }),
      );
      expect(row.recorded_at).toBe(at);
      prev = row.hash;
    }
    expect(next).toEqual({ lastWal: 44, hash: prev });
    expect(stored.map((events) => events.map((e) => [e.wal, e.hash]))).toEqual([
      [
        [42, rows[0]!.hash],
        [43, rows[1]!.hash],
      ],
      [[44, rows[2]!.hash]],
    ]);
    expect(stored[1]![0]).toMatchObject({ stream: 'b', streamVersion: 10, data: { n: 3 } });
  });

  it('gives the same rows as appending the inputs one at a time', () => {
    const whole = chainRows({ lastWal: 0, hash: GENESIS_HASH }, inputs);
    const first = chainRows({ lastWal: 0, hash: GENESIS_HASH }, [inputs[0]!]);
    const second = chainRows(first.head, [inputs[1]!]);
    expect(whole.rows).toEqual([...first.rows, ...second.rows]);
  });

  it('leaves the head alone without events and refuses an event without payload', () => {
    const head = { lastWal: 3, hash: GENESIS_HASH };
    expect(chainRows(head, [])).toEqual({ rows: [], stored: [], head });
    expect(() => chainRows(head, [{ appended: a, payloads: [Buffer.from([1])] }])).toThrow('no payload');
  });
});
