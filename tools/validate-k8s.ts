// Validates rendered Kubernetes manifests offline against the Kubernetes OpenAPI schemas (the
// kubernetes-models package, 4.x for Node 20: one generated JSON-schema validator per kind), as
// kubeconform would:
//   helm template ... | node -r ./tools/register.js tools/validate-k8s.ts [--skip-kind Kind ...]
// Kinds without a schema there (custom resources such as CloudNativePG's Cluster) fail unless named
// with --skip-kind. Prints one line per problem and a summary; exits 1 when a manifest is invalid.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

interface Manifest {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string };
}
type ModelClass = new (data: unknown) => { validate(): void };

const MODELS = path.join(__dirname, '..', 'node_modules', 'kubernetes-models');

/** kubernetes-models/<group/version>/<Kind>.js ("v1" for the core group); undefined when absent. */
function modelOf(apiVersion: string, kind: string): ModelClass | undefined {
  const file = path.join(MODELS, ...apiVersion.split('/'), `${kind}.js`);
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(file) as Record<string, ModelClass>;
    return mod[kind];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  }
}

export function validateManifests(
  text: string,
  skipKinds: readonly string[],
): { valid: number; skipped: string[]; errors: string[] } {
  const errors: string[] = [];
  const skipped: string[] = [];
  let valid = 0;
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) {
      errors.push(`YAML: ${doc.errors.map((e) => e.message).join('; ')}`);
      continue;
    }
    const manifest = doc.toJS() as Manifest | null;
    if (manifest === null) continue;
    const id = `${manifest.kind ?? '?'}/${manifest.metadata?.name ?? '?'}`;
    if (!manifest.apiVersion || !manifest.kind) {
      errors.push(`${id}: apiVersion and kind are required`);
      continue;
    }
    if (!manifest.metadata?.name) errors.push(`${id}: metadata.name is required`);
    if (skipKinds.includes(manifest.kind)) {
      skipped.push(id);
      continue;
    }
    const Model = modelOf(manifest.apiVersion, manifest.kind);
    if (!Model) {
      errors.push(`${id}: no schema for ${manifest.apiVersion} ${manifest.kind}`);
      continue;
    }
    try {
      new Model(manifest).validate();
      valid++;
    } catch (error) {
      errors.push(`${id}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { valid, skipped, errors };
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const skipKinds: string[] = [];
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--skip-kind') skipKinds.push(args[++i] ?? '');
    else files.push(args[i] ?? '');
  }
  const text =
    files.length > 0 ? files.map((f) => readFileSync(f, 'utf8')).join('\n---\n') : readFileSync(0, 'utf8');
  const result = validateManifests(text, skipKinds);
  for (const e of result.errors) console.error(`invalid: ${e}`);
  console.log(
    `${result.valid} valid, ${result.errors.length} invalid, ${result.skipped.length} skipped (${result.skipped.join(', ') || 'none'})`,
  );
  process.exit(result.errors.length > 0 ? 1 : 0);
}
