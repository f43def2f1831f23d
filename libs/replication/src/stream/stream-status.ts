import { Injectable } from '@nestjs/common';
import type { ReplicationMode } from '@coffer/contracts/replication';
import type { SourceHead } from '../wal/merkle';

/** A secondary as its primary sees it (one per open or last-closed connection). */
export interface SecondaryLive {
  id: string;
  apiAddr: string;
  clusterAddr: string;
  connected: boolean;
  lastHeartbeat: Date | null;
  acked: SourceHead[];
}

/** The primary as a secondary sees it. */
export interface PrimaryLive {
  connected: boolean;
  lastHeartbeat: Date | null;
  /** the primary's heads at its last heartbeat */
  heads: SourceHead[];
  /** why the primary refused the last connection, if it did */
  refused: string | null;
  /** performance: what the primary filters out for this secondary */
  filtered: { mounts: string[]; namespaces: string[] };
}

/** What this process knows of its live cluster connections, for status. */
@Injectable()
export class StreamStatus {
  private readonly secondaries = new Map<string, SecondaryLive>();
  private readonly primaries = new Map<ReplicationMode, PrimaryLive>();

  secondary(mode: ReplicationMode, id: string): SecondaryLive | undefined {
    return this.secondaries.get(`${mode}:${id}`);
  }

  setSecondary(mode: ReplicationMode, live: SecondaryLive): void {
    this.secondaries.set(`${mode}:${live.id}`, live);
  }

  forgetSecondaries(mode: ReplicationMode): void {
    for (const key of [...this.secondaries.keys()])
      if (key.startsWith(`${mode}:`)) this.secondaries.delete(key);
  }

  primary(mode: ReplicationMode): PrimaryLive {
    let live = this.primaries.get(mode);
    if (!live) {
      live = {
        connected: false,
        lastHeartbeat: null,
        heads: [],
        refused: null,
        filtered: { mounts: [], namespaces: [] },
      };
      this.primaries.set(mode, live);
    }
    return live;
  }

  resetPrimary(mode: ReplicationMode): void {
    this.primaries.delete(mode);
  }
}
