#!/usr/bin/env node
// The `coffer` executable: runs the TypeScript sources through the repo's swc register hook,
// exactly as `npm start` does, so `npx coffer` works on a fresh clone without a build step.
// realpath: a global install (npm link / npm i -g <repo>) reaches this file through a symlink.
const path = require('path');
const fs = require('fs');
const root = path.resolve(path.dirname(fs.realpathSync(__filename)), '..', '..', '..');
require(path.join(root, 'tools', 'register.js'));
require(path.join(root, 'apps', 'cli', 'src', 'main.ts'));
