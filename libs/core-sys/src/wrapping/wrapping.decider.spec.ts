import { pendingResponse, rfc3339Nano } from './wrapping.decider';

const wrapped = (version: number) => ({
  type: 'ResponseWrapped' as const,
  data: { response: { data: { a: 1 } }, creationTtl: 60, createdAt: 1_000, creationPath: 'secret/data/x' },
  stream: 'wrapped-response/acc',
  streamVersion: version,
  recordedAt: new Date(0),
});
const released = (version: number) => ({
  type: 'WrappedResponseReleased' as const,
  data: { reason: 'unwrapped' as const, releasedAt: 2_000 },
  stream: 'wrapped-response/acc',
  streamVersion: version,
  recordedAt: new Date(0),
});

describe('wrapping decider', () => {
  it('finds the response still waiting, with the version to append after', () => {
    expect(pendingResponse([wrapped(1)])).toEqual({ wrapped: wrapped(1).data, version: 1 });
  });

  it('finds nothing in an empty or released stream', () => {
    expect(pendingResponse([])).toBeUndefined();
    expect(pendingResponse([wrapped(1), released(2)])).toBeUndefined();
  });

  it('renders creation times as RFC 3339 with nanoseconds, in UTC', () => {
    expect(rfc3339Nano(Date.UTC(2026, 0, 2, 3, 4, 5, 67))).toBe('2026-01-02T03:04:05.067000000Z');
  });
});
