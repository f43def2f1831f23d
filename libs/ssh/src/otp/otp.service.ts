import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { invalidRequest, type RequestOf, type ResponseOf } from '@coffer/contracts';
import type { ssh } from '@coffer/contracts/ssh';
import { isConcurrencyError } from '@coffer/event-store';
import { z } from 'zod';
import { RecordStore } from '../records/record.store';
import { OtpEventLog } from './otp.projection';
import { OtpRepository } from './otp.repository';

const saltSchema = z.object({ key: z.string() });

/** Vault's agent handshake: a host checks its configuration by verifying this string. */
const ECHO_REQUEST = 'verify-echo-request';
const ECHO_RESPONSE = 'verify-echo-response';

/** One-time passwords: issued by creds, consumed once by verify, or revoked with their lease. */
@Injectable()
export class OtpService {
  constructor(
    private readonly records: RecordStore,
    private readonly repo: OtpRepository,
    private readonly log: OtpEventLog,
  ) {}

  /** The OTP's salted hash (HMAC-SHA256 under the mount's salt, which lives behind the barrier). */
  async hash(mountUuid: string, otp: string): Promise<string> {
    const salt = await this.records.getOrCreate(mountUuid, 'salt', 'otp', saltSchema, {
      key: randomBytes(32).toString('base64'),
    });
    return createHmac('sha256', Buffer.from(salt.key, 'base64')).update(otp).digest('hex');
  }

  /** A fresh OTP for (username, ip) under the role; only its hash is stored. */
  async issue(
    mountUuid: string,
    grant: { username: string; ip: string; roleName: string },
  ): Promise<{ otp: string; hash: string }> {
    const otp = randomUUID();
    const hash = await this.hash(mountUuid, otp);
    await this.log.append({ mountUuid, hash }, 0, [{ type: 'SshOtpIssued', data: grant }]);
    return { otp, hash };
  }

  /**
   * Consumes the OTP: exactly one of concurrent verifies wins (the append expects the stream at
   * its issued version). When the host names the user or IP, a mismatch leaves the OTP unused.
   */
  async verify(req: RequestOf<typeof ssh.verify>): Promise<ResponseOf<typeof ssh.verify>> {
    const { otp, username, ip } = req.body;
    if (otp === '') throw invalidRequest('Missing otp');
    if (otp === ECHO_REQUEST) return { data: { message: ECHO_RESPONSE } };
    const mountUuid = req.mount.uuid;
    const hash = await this.hash(mountUuid, otp);
    const row = await this.repo.get(mountUuid, hash);
    if (!row) throw invalidRequest('OTP not found');
    if (username !== '' && username !== row.username)
      throw invalidRequest('OTP was not issued for this username');
    if (ip !== '' && ip.trim().toLowerCase() !== row.ip)
      throw invalidRequest('OTP was not issued for this IP');
    try {
      await this.log.append({ mountUuid, hash }, row.stream_version, [{ type: 'SshOtpConsumed', data: {} }]);
    } catch (error) {
      if (isConcurrencyError(error)) throw invalidRequest('OTP not found');
      throw error;
    }
    return { data: { username: row.username, ip: row.ip, role_name: row.role_name } };
  }

  /** Lease revocation: idempotent (an OTP already used or revoked is gone). */
  async revoke(mountUuid: string, hash: string): Promise<void> {
    const row = await this.repo.get(mountUuid, hash);
    if (!row) return;
    try {
      await this.log.append({ mountUuid, hash }, row.stream_version, [{ type: 'SshOtpRevoked', data: {} }]);
    } catch (error) {
      if (!isConcurrencyError(error)) throw error;
    }
  }
}
