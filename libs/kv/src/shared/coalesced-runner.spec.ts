import { CoalescedRunner } from './coalesced-runner';

/** A job whose runs the test finishes by hand. */
function manualJob() {
  const finishers: (() => void)[] = [];
  let started = 0;
  const job = () =>
    new Promise<void>((resolve) => {
      started++;
      finishers.push(resolve);
    });
  return { job, started: () => started, finish: (i: number) => finishers[i]?.() };
}

const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(() => (done = true));
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
};

describe('CoalescedRunner', () => {
  it('runs at once when idle', async () => {
    const m = manualJob();
    const runner = new CoalescedRunner(m.job);
    const p = runner.request();
    expect(m.started()).toBe(1);
    m.finish(0);
    await p;
  });

  it('queues one run behind the current one, shared by every later caller', async () => {
    const m = manualJob();
    const runner = new CoalescedRunner(m.job);
    const first = runner.request();
    const second = runner.request();
    const third = runner.request();
    expect(second).toBe(third);
    expect(m.started()).toBe(1);
    m.finish(0);
    await first;
    expect(await settled(second)).toBe(false);
    for (let i = 0; i < 5 && m.started() < 2; i++) await Promise.resolve();
    expect(m.started()).toBe(2);
    m.finish(1);
    await second;
    // idle again: a new request starts a new run
    const fourth = runner.request();
    expect(m.started()).toBe(3);
    m.finish(2);
    await fourth;
  });

  it('still runs the queued job when the current run fails', async () => {
    let calls = 0;
    const runner = new CoalescedRunner(async () => {
      calls++;
      if (calls === 1) throw new Error('boom');
    });
    const first = runner.request();
    const second = runner.request();
    await expect(first).rejects.toThrow('boom');
    await second;
    expect(calls).toBe(2);
  });
});
