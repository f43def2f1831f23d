import { AppendLink, ConcurrencyError } from '@coffer/event-store';
import { StreamWriter, type Decided, type Submitted } from './stream-writer';

/** A fake append: settles when the test says, moving its link as the committer would. */
function fakeAppend() {
  const link = new AppendLink();
  let settle: (ok: boolean) => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => {
    settle = (ok) => {
      link.moveTo(ok ? 'committed' : 'failed');
      if (ok) resolve();
      else reject(new ConcurrencyError('s', 1, 2));
    };
  });
  done.catch(() => undefined);
  return { link, done, settle };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('StreamWriter.pipeline', () => {
  it('decides each write on the state the previous left while that one still waits for its batch', async () => {
    const writer = new StreamWriter();
    const priors: Array<number | undefined> = [];
    const appends: Array<ReturnType<typeof fakeAppend>> = [];
    const write = () =>
      writer.pipeline<number, number>('s', (prior: Decided<number> | undefined) => {
        priors.push(prior?.state);
        const state = (prior?.state ?? 10) + 1;
        const a = fakeAppend();
        appends.push(a);
        return Promise.resolve({
          next: state,
          link: a.link,
          done: a.done.then(() => state),
        } satisfies Submitted<number, number>);
      });
    const results = [write(), write(), write()];
    await turn();
    // no load after the first: the second and third built on their predecessor's decision
    expect(priors).toEqual([undefined, 11, 12]);
    for (const a of appends) a.settle(true);
    expect(await Promise.all(results)).toEqual([11, 12, 13]);
  });

  it('waits for a predecessor already being committed, then decides on fresh state', async () => {
    const writer = new StreamWriter();
    const priors: Array<number | undefined> = [];
    const first = fakeAppend();
    const one = writer.pipeline<number, string>('s', () =>
      Promise.resolve({ next: 1, link: first.link, done: first.done.then(() => 'one') }),
    );
    await turn();
    first.link.moveTo('batched');
    const second = fakeAppend();
    const two = writer.pipeline<number, string>('s', (prior) => {
      priors.push(prior?.state);
      return Promise.resolve({ next: 2, link: second.link, done: second.done.then(() => 'two') });
    });
    await turn();
    expect(priors).toEqual([]);
    first.settle(true);
    await turn();
    expect(priors).toEqual([undefined]);
    second.settle(true);
    expect([await one, await two]).toEqual(['one', 'two']);
  });

  it('decides a write again, on fresh state, when the append it was chained to failed', async () => {
    const writer = new StreamWriter();
    const priors: Array<number | undefined> = [];
    const appends: Array<ReturnType<typeof fakeAppend>> = [];
    const write = (name: string) =>
      writer.pipeline<number, string>('s', (prior) => {
        priors.push(prior?.state);
        const a = fakeAppend();
        appends.push(a);
        return Promise.resolve({
          next: (prior?.state ?? 0) + 1,
          link: a.link,
          done: a.done.then(() => name),
        });
      });
    const a = write('a');
    const b = write('b');
    await turn();
    expect(priors).toEqual([undefined, 1]);
    // a conflicts (another replica wrote), so b, decided on a, fails as well
    appends[0]?.settle(false);
    appends[1]?.settle(false);
    await turn();
    // both are decided again: a on fresh state (its predecessor failed), b on a's new decision
    expect(priors).toEqual([undefined, 1, undefined, 1]);
    appends[2]?.settle(true);
    appends[3]?.settle(true);
    expect([await a, await b]).toEqual(['a', 'b']);
  });
});
