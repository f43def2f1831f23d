// Runs TypeScript sources directly (`node -r ./tools/register.js apps/<app>/src/main.ts`): swc
// compiles each .ts file as it is required (native, fast, keeps decorator metadata for NestJS DI)
// and the @coffer/* path aliases of tsconfig.base.json resolve to the libs' sources.
//
// Our own hook rather than @swc-node/register: that one loads the TypeScript compiler (~300 ms of
// a 0.9 s `coffer` command, measured with --cpu-prof) in every process just to read tsconfig, and
// every CLI command and every service process of a cluster paid it. Compiled output is kept on
// disk by content hash, so a process only compiles what changed since the last one.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const Module = require('module');
const path = require('path');
const swc = require('@swc/core');

const ROOT = path.resolve(__dirname, '..');
const { compilerOptions } = JSON.parse(fs.readFileSync(path.join(ROOT, 'tsconfig.base.json'), 'utf8'));

// The same transform as jest's (jest.config.js), with inline source maps for stack traces.
const SWC_OPTIONS = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
  swcrc: false,
  configFile: false,
};
const CACHE_DIR = path.join(ROOT, 'node_modules', '.cache', 'coffer-register');
const SALT = `${swc.version}\0${JSON.stringify(SWC_OPTIONS)}\0`;

/** The cached compilation, or undefined: a read-only tree (a container image) simply compiles. */
function cached(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function store(file, code) {
  try {
    fs.mkdirSync(CACHE_DIR, { recursive: true });
    // written aside and renamed: processes starting together never read half a file
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, code);
    fs.renameSync(tmp, file);
  } catch {
    // no cache where the tree is not writable
  }
}

function compile(source, filename) {
  const key = crypto.createHash('sha256').update(SALT).update(filename).update('\0').update(source);
  const file = path.join(CACHE_DIR, `${key.digest('hex')}.js`);
  const hit = cached(file);
  if (hit !== undefined) return hit;
  const { code } = swc.transformSync(source, { ...SWC_OPTIONS, filename });
  store(file, code);
  return code;
}

Module._extensions['.ts'] = function loadTypeScript(module, filename) {
  module._compile(compile(fs.readFileSync(filename, 'utf8'), filename), filename);
};

// tsconfig "paths", longest prefix first as TypeScript matches them
// ("@coffer/contracts/*" before "@coffer/*").
const aliases = Object.entries(compilerOptions.paths)
  .map(([pattern, [target]]) => {
    const [prefix, suffix = ''] = pattern.split('*');
    return { prefix, suffix, target: path.join(ROOT, compilerOptions.baseUrl, target) };
  })
  .sort((a, b) => b.prefix.length - a.prefix.length);

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function resolveAliased(request, ...rest) {
  for (const { prefix, suffix, target } of aliases) {
    if (
      request.length > prefix.length + suffix.length &&
      request.startsWith(prefix) &&
      request.endsWith(suffix)
    ) {
      const star = request.slice(prefix.length, request.length - suffix.length);
      const file = target.replace('*', star);
      if (fs.existsSync(file)) return resolveFilename.call(this, file, ...rest);
    }
  }
  return resolveFilename.call(this, request, ...rest);
};

process.setSourceMapsEnabled(true);
