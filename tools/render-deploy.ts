import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ENGINES } from '@coffer/engines';
import { REPO_ROOT } from '@coffer/testing';
import { HELM_SERVICES_FILE, renderHelmServices } from './lib/helm-services';
import { ENGINE_MANIFEST_FILE, renderEngineManifests } from './lib/k8s-manifests';

/** `npm run deploy:render`: writes deploy/k8s/engines.yaml and the Helm chart's service list from the engine list. */
writeFileSync(path.join(REPO_ROOT, ENGINE_MANIFEST_FILE), renderEngineManifests(ENGINES));
console.log(`wrote ${ENGINE_MANIFEST_FILE} (${ENGINES.map((e) => e.name).join(', ')})`);
writeFileSync(path.join(REPO_ROOT, HELM_SERVICES_FILE), renderHelmServices(ENGINES));
console.log(`wrote ${HELM_SERVICES_FILE}`);
