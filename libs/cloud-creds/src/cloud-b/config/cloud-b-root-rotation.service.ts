import {
  CreateAccessKeyCommand,
  DeleteAccessKeyCommand,
  GetUserCommand,
  ListAccessKeysCommand,
} from '@aws-sdk/client-iam';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { invalidRequest } from '@coffer/contracts';
import { isConcurrencyError } from '@coffer/event-store';
import { CLOUD_B_ENVIRONMENT, type CloudBEnvironment } from '../aws/cloud-b-environment';
import { cloudBClients, isNoSuchEntity, upstream } from '../aws/cloud-b-clients';
import { CloudBRecordStore, type CloudBVersioned } from '../records/cloud-b-record.store';

const OLD_KEY_KEPT = 'the old access key could not be deleted yet; the engine keeps trying in the background';

/**
 * rotate-root, write-ahead: `RootRotationIntended` (the IAM user and the key in use) is appended
 * before CreateAccessKey, `RootKeySwitched` (the new key) once it exists, `RootRotationSettled`
 * once the old key is deleted. A rotation cut short (kill -9, time-out) is settled by the recovery
 * pass: a key created but never recorded is deleted, a recorded one's predecessor is deleted.
 */
@Injectable()
export class RootRotation {
  private readonly logger = new Logger('cloud-b.rotate-root');

  constructor(
    private readonly store: CloudBRecordStore,
    @Inject(CLOUD_B_ENVIRONMENT) private readonly env: CloudBEnvironment,
  ) {}

  async rotate(mountUuid: string, now: Date): Promise<{ accessKey: string; warnings: string[] }> {
    const root = await this.store.get(mountUuid, 'root', 'root');
    if (!root) throw invalidRequest('no configuration found for config/root');
    if (root.state.rotation) throw invalidRequest('a root credential rotation is already in progress');
    const { access_key: oldKey } = root.state;
    if (oldKey === '' || root.state.secret_key === '')
      throw invalidRequest('Cannot call config/rotate-root when either access_key or secret_key is empty');
    const clients = cloudBClients(root.state, this.env);
    const opts = { abortSignal: AbortSignal.timeout(clients.deadlineMs) };
    try {
      const user = await clients.iam.send(new GetUserCommand({}), opts).catch((error: unknown) => {
        throw upstream('error calling GetUser', error);
      });
      const userName = user.User?.UserName;
      if (!userName) throw upstream('error calling GetUser', new Error('nil user returned from GetUser'));
      const keys = await clients.iam
        .send(new ListAccessKeysCommand({ UserName: userName }), opts)
        .catch((error: unknown) => {
          throw upstream('error calling ListAccessKeys', error);
        });
      const others = (keys.AccessKeyMetadata ?? []).filter((k) => k.AccessKeyId !== oldKey);
      if (others.length > 0)
        throw invalidRequest(
          `the IAM user ${userName} has another access key; rotate-root needs the engine's key to be its only one`,
        );
      await this.store.append(mountUuid, 'root', 'root', root.version, [
        {
          type: 'CloudBRootRotationIntended',
          data: { user_name: userName, old_access_key: oldKey, at: now.toISOString() },
        },
      ]);
      let created;
      try {
        created = await clients.iam.send(new CreateAccessKeyCommand({ UserName: userName }), opts);
      } catch (error) {
        // refused by IAM: nothing was created; otherwise (no answer) the recovery pass looks
        if (hasAnswer(error)) await this.settle(mountUuid, root.version + 1);
        throw upstream('error calling CreateAccessKey', error);
      }
      const accessKey = created.AccessKey?.AccessKeyId ?? '';
      const secretKey = created.AccessKey?.SecretAccessKey ?? '';
      await this.store.append(mountUuid, 'root', 'root', root.version + 1, [
        {
          type: 'CloudBRootKeySwitched',
          data: { access_key: accessKey, secret_key: secretKey, at: now.toISOString() },
        },
      ]);
      try {
        // with the old key itself: the new one may not work for a few seconds (eventual consistency)
        await clients.iam.send(new DeleteAccessKeyCommand({ UserName: userName, AccessKeyId: oldKey }), {
          abortSignal: AbortSignal.timeout(clients.deadlineMs),
        });
      } catch (error) {
        if (!isNoSuchEntity(error)) {
          this.logger.warn(`deleting the old root access key failed: ${upstream('', error).message}`);
          return { accessKey, warnings: [OLD_KEY_KEPT] };
        }
      }
      await this.settle(mountUuid, root.version + 2);
      return { accessKey, warnings: [] };
    } finally {
      clients.destroy();
    }
  }

  /**
   * The recovery pass's part: a rotation left pending. Before the switch, every key of the user
   * but the one in use was created by it and is deleted; after, the old key is deleted.
   */
  async finish(mountUuid: string, root: CloudBVersioned<'root'>): Promise<void> {
    const rotation = root.state.rotation;
    if (!rotation) return;
    const clients = cloudBClients(root.state, this.env);
    const opts = { abortSignal: AbortSignal.timeout(clients.deadlineMs) };
    try {
      const UserName = rotation.user_name;
      const doomed: string[] = [];
      if (rotation.switched) doomed.push(rotation.old_access_key);
      else {
        const keys = await clients.iam.send(new ListAccessKeysCommand({ UserName }), opts);
        for (const k of keys.AccessKeyMetadata ?? [])
          if (k.AccessKeyId && k.AccessKeyId !== root.state.access_key) doomed.push(k.AccessKeyId);
      }
      for (const AccessKeyId of doomed) {
        try {
          await clients.iam.send(new DeleteAccessKeyCommand({ UserName, AccessKeyId }), opts);
        } catch (error) {
          if (!isNoSuchEntity(error)) throw upstream('error deleting an access key', error);
        }
      }
    } finally {
      clients.destroy();
    }
    await this.settle(mountUuid, root.version);
  }

  private async settle(mountUuid: string, expected: number): Promise<void> {
    await this.store
      .append(mountUuid, 'root', 'root', expected, [{ type: 'CloudBRootRotationSettled', data: {} }])
      .catch((error: unknown) => {
        if (!isConcurrencyError(error)) throw error;
      });
  }
}

/** IAM answered (an error response): the call was refused, not lost. */
function hasAnswer(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
}
