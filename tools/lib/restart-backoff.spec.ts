import { planRestart, type RestartPolicy } from './restart-backoff';

describe('planRestart', () => {
  const policy: RestartPolicy = { initialMs: 500, maxMs: 30_000, resetAfterMs: 60_000 };

  it('doubles the delay for each restart in a row, from the initial delay up to the cap', () => {
    const delays: number[] = [];
    let state = { restarts: 0, startedAt: 0 };
    let now = 0;
    for (let i = 0; i < 10; i++) {
      now += 1_000; // dies a second after each start
      const plan = planRestart(state, now, policy);
      delays.push(plan.delayMs);
      now += plan.delayMs;
      state = plan.next(now);
    }
    expect(delays).toEqual([500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000, 30_000]);
  });

  it('counts the attempts and starts again from the initial delay once a run stayed up long enough', () => {
    const crashing = planRestart({ restarts: 6, startedAt: 100_000 }, 100_500, policy);
    expect(crashing).toMatchObject({ attempt: 7, delayMs: 30_000 });
    expect(crashing.next(131_000)).toEqual({ restarts: 7, startedAt: 131_000 });

    const recovered = planRestart({ restarts: 6, startedAt: 100_000 }, 160_000, policy);
    expect(recovered).toMatchObject({ attempt: 1, delayMs: 500 });
  });

  it('restarts a process that died at once after its first start after the initial delay', () => {
    expect(planRestart({ restarts: 0, startedAt: 5 }, 5, policy)).toMatchObject({ attempt: 1, delayMs: 500 });
  });
});
