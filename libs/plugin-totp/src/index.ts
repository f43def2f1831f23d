export { totpPlugin } from './totp.plugin';
export { base32Decode, base32Encode, hotp } from './totp-codes';
