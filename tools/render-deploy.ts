import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ENGINES } from '@coffer/engines';
import { REPO_ROOT } from '@coffer/testing';
import { ENGINE_MANIFEST_FILE, renderEngineManifests } from './lib/k8s-manifests';

/** `npm run deploy:render`: writes deploy/k8s/engines.yaml from the engine list. */
writeFileSync(path.join(REPO_ROOT, ENGINE_MANIFEST_FILE), renderEngineManifests(ENGINES));
console.log(`wrote ${ENGINE_MANIFEST_FILE} (${ENGINES.map((e) => e.name).join(', ')})`);
