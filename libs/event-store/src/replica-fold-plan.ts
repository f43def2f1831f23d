/** One replicated event as a promotion fold sees it (the opened row of the replica log). */
export interface FoldedEvent {
  stream: string;
  /** the event's version in the former primary's stream */
  streamVersion: number;
}

/** One append of the fold: the former primary's events of a stream not folded yet. */
export interface StreamFold<E extends FoldedEvent = FoldedEvent> {
  stream: string;
  /** the stream's version in this cluster's own log */
  expectedVersion: number;
  events: E[];
  /** the former primary's version of the stream once appended */
  foldedTo: number;
}

/**
 * The appends that bring a batch of the replica log (WAL order, already filtered to what the
 * service projected) into this cluster's own log, one per stream in the order the streams first
 * appear. A stream this cluster wrote itself and never folded (`own` > 0, no `folded` entry: its
 * root token, a replicated user a performance secondary updated locally) keeps its own history:
 * its read-model row is what this cluster decided last, and the former primary's events would
 * replay over it. A stream folded before continues after the version it was folded to, so a
 * retried batch appends nothing twice.
 */
export function planStreamFolds<E extends FoldedEvent>(
  events: readonly E[],
  folded: ReadonlyMap<string, number>,
  own: ReadonlyMap<string, number>,
): StreamFold<E>[] {
  const byStream = new Map<string, E[]>();
  for (const e of events) {
    const list = byStream.get(e.stream);
    if (list) list.push(e);
    else byStream.set(e.stream, [e]);
  }
  const plans: StreamFold<E>[] = [];
  for (const [stream, list] of byStream) {
    const done = folded.get(stream);
    const ownVersion = own.get(stream) ?? 0;
    if (done === undefined && ownVersion > 0) continue;
    const pending = list.filter((e) => e.streamVersion > (done ?? 0));
    const last = pending.at(-1);
    if (!last) continue;
    plans.push({ stream, expectedVersion: ownVersion, events: pending, foldedTo: last.streamVersion });
  }
  return plans;
}
