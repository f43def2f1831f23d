import { DomainError } from '@coffer/contracts';
import {
  replicationModes,
  replicationModesChanged,
  type ReplicationModes,
} from '@coffer/contracts/replication';
import { waitFor } from '@coffer/testing';
import { InProcessTransport, type Subscription, type Transport } from '@coffer/transport';
import { DrStandby } from './dr-standby';

const quiet = { error: () => undefined, warn: () => undefined };

const modes = (dr: ReplicationModes['dr']): ReplicationModes => ({
  dr,
  performance: 'disabled',
  performancePrimaryApiAddr: '',
});

/** Plays the replication service: answers its modes, or fails as told. */
function fakeReplication(transport: Transport) {
  const state: { answer: ReplicationModes | Error; asked: number; served: Subscription | undefined } = {
    answer: modes('disabled'),
    asked: 0,
    served: undefined,
  };
  state.served = transport.serve(replicationModes, 'replication', () => {
    state.asked += 1;
    const answer = state.answer;
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
  });
  return state;
}

describe('DrStandby', () => {
  let transport: Transport;
  let standby: DrStandby;

  beforeEach(() => {
    transport = new InProcessTransport({ logger: quiet });
    standby = new DrStandby(transport);
    standby.onModuleInit();
  });

  afterEach(async () => {
    standby.onModuleDestroy();
    await transport.close();
  });

  it('stands by on a DR secondary only, and resumes at once on the modes broadcast', async () => {
    const replication = fakeReplication(transport);
    replication.answer = modes('secondary');
    expect(await standby.standing()).toBe(true);
    expect(await standby.standing()).toBe(true);
    expect(replication.asked).toBe(1); // cached

    replication.answer = modes('primary'); // promoted
    await transport.publish(replicationModesChanged, modes('primary'));
    // delivered asynchronously; nothing else asks again before the cache is dropped
    await waitFor(async () => !(await standby.standing()));
    expect(replication.asked).toBe(2);
  });

  it('runs where no replication service exists, asking again at every pass', async () => {
    expect(await standby.standing()).toBe(false);
    const replication = fakeReplication(transport);
    replication.answer = modes('secondary');
    expect(await standby.standing()).toBe(true);
  });

  it('stands by while the replication service cannot tell, and once gone after saying secondary', async () => {
    const replication = fakeReplication(transport);
    replication.answer = new DomainError('internal', 'internal error');
    expect(await standby.standing()).toBe(true);

    replication.answer = modes('secondary');
    expect(await standby.standing()).toBe(true);
    replication.served?.unsubscribe(); // its only replica stopped
    await transport.publish(replicationModesChanged, modes('secondary'));
    expect(await standby.standing()).toBe(true);
  });
});
