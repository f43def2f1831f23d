import QRCode from 'qrcode';

/**
 * The key's otpauth URL as a QR code, a PNG `size` pixels wide, base64 (Vault's `barcode`:
 * scanned by authenticator apps when a key is generated and exported). Error correction M, as
 * the otp library behind Vault's totp engine uses.
 */
export async function barcodePng(url: string, size: number): Promise<string> {
  const png = await QRCode.toBuffer(url, { type: 'png', errorCorrectionLevel: 'M', width: size, margin: 0 });
  return png.toString('base64');
}
