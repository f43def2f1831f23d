// Preloaded with NODE_OPTIONS="--require .../cpu-prof-preload.js" (NODE_OPTIONS refuses --cpu-prof):
// profiles the whole process and writes <COFFER_CPU_PROF_DIR>/<pid>.cpuprofile when it exits.
'use strict';
const inspector = require('node:inspector');
const fs = require('node:fs');
const path = require('node:path');

const dir = process.env.COFFER_CPU_PROF_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  session.post('Profiler.start');
  process.once('exit', () => {
    // Same-thread inspector sessions answer synchronously, so this completes inside 'exit'.
    session.post('Profiler.stop', (error, result) => {
      if (error) return;
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
