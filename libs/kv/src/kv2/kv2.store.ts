import { Injectable } from '@nestjs/common';
import type { AppendLink } from '@coffer/event-store';
import { DataKeyCipher, kv2CustomMetadataLocation, type SealedData } from '../shared/data-keys';
import type { Kv2Event } from './kv2.events';
import { toKeyState } from './kv2.mapping';
import { Kv2EventLog } from './kv2.projection';
import { Kv2Repository } from './kv2.repository';
import type { EngineConfig, KeyState } from './kv2.state';

export interface LoadedKey {
  config: EngineConfig;
  state: KeyState | null;
  /** stream version the read model reflects; null when the key has no row */
  streamVersion: number | null;
}

/** Loads kv v2 decision state and appends a key's events with their projection. */
@Injectable()
export class Kv2Store {
  constructor(
    private readonly repo: Kv2Repository,
    private readonly log: Kv2EventLog,
    private readonly dataKeys: DataKeyCipher,
  ) {}

  async load(mountUuid: string, path: string): Promise<LoadedKey> {
    const rows = await this.repo.loadForDecision(mountUuid, path);
    if (!rows.key) return { config: rows.config, state: null, streamVersion: null };
    const custom = this.openCustomMetadata(rows.key.custom_metadata, mountUuid, path);
    return {
      config: rows.config,
      state: toKeyState(rows.key, rows.versions, custom),
      streamVersion: rows.key.stream_version,
    };
  }

  openCustomMetadata(blob: Buffer | null, mountUuid: string, path: string): Record<string, string> | null {
    if (!blob) return null;
    const json = this.dataKeys
      .decryptValue(blob, kv2CustomMetadataLocation(mountUuid, path))
      .toString('utf8');
    return JSON.parse(json) as Record<string, string>;
  }

  /**
   * Appends `events` to the key's stream, expecting the version the decision was taken on (a key
   * without a row is created: a concurrent creator makes the projection's insert fail, which the
   * caller retries). `sealed` carries the data keys of the versions written.
   */
  async append(
    mountUuid: string,
    path: string,
    loaded: LoadedKey,
    events: Kv2Event[],
    sealed: SealedData[] = [],
    chain: { link?: AppendLink; after?: AppendLink } = {},
  ): Promise<void> {
    if (events.length === 0) return;
    const location = kv2CustomMetadataLocation(mountUuid, path);
    await this.log.append(
      {
        mountUuid,
        path,
        created: loaded.state === null,
        wrappedKeys: new Map(sealed.map((s) => [s.keyId, s.wrappedKey])),
        ciphertexts: new Map(sealed.map((s) => [s.keyId, s.ciphertext])),
        sealCustomMetadata: (map) =>
          map ? this.dataKeys.encryptValue(Buffer.from(JSON.stringify(map), 'utf8'), location) : null,
      },
      loaded.streamVersion ?? 'any',
      events,
      chain,
    );
  }
}
