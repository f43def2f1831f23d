import { Logger } from '@nestjs/common';
import type { ReplicationMode } from '@coffer/contracts/replication';
import type { PrimaryLink } from '../state/replication-state.decider';
import { messageOf } from './error-text';
import { frame, frameReader, serverFrameSchema } from './stream.wire';
import { connectToPrimary } from './primary-connection';

const RETRY_MS = 2_000;
const ANSWER_TIMEOUT_MS = 10_000;

/**
 * Split-brain fencing from the promoted side: a secondary promoted while its old primary may
 * still be up dials that primary with its own pre-shared key and tells it to step down; the old
 * primary demotes itself (it then refuses client requests as any DR secondary does) and answers
 * `refused`. Retried until the old primary answers (it may be down now and come back later);
 * an old primary that is no longer a primary of the set answers `refused` too, which ends it.
 */
export class Fencer {
  private readonly logger = new Logger('ReplicationFencer');
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private warned = false;
  /** resolved once the old primary answered */
  done = false;

  constructor(
    readonly mode: ReplicationMode,
    readonly former: PrimaryLink,
    private readonly self: { apiAddr: string; clusterAddr: string },
  ) {}

  start(): void {
    this.attempt();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private attempt(): void {
    if (this.stopped || this.done) return;
    const socket = connectToPrimary(this.former, this.mode);
    const timeout = setTimeout(() => socket.destroy(), ANSWER_TIMEOUT_MS);
    timeout.unref();
    socket.on('secureConnect', () => {
      socket.write(
        frame({
          t: 'hello',
          mode: this.mode,
          clusterId: this.former.clusterId,
          secondaryId: this.former.secondaryId,
          apiAddr: this.self.apiAddr,
          clusterAddr: this.self.clusterAddr,
          positions: [],
          stepDown: true,
        }),
      );
    });
    socket.on(
      'data',
      frameReader(
        serverFrameSchema,
        (f) => {
          if (f.t !== 'refused') return;
          this.done = true;
          this.logger.log(`the former ${this.mode} primary answered: ${f.reason}`);
          socket.destroy();
        },
        () => socket.destroy(),
      ),
    );
    socket.on('error', (error) => {
      if (!this.warned) this.logger.warn(`cannot reach the former primary yet: ${messageOf(error)}`);
      this.warned = true;
      socket.destroy();
    });
    socket.on('close', () => {
      clearTimeout(timeout);
      if (this.done || this.stopped) return;
      this.timer = setTimeout(() => this.attempt(), RETRY_MS);
      this.timer.unref();
    });
  }
}
