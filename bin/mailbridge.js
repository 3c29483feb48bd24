#!/usr/bin/env -S MALLOC_ARENA_MAX=1 MALLOC_TRIM_THRESHOLD_=131072 node --expose-gc
'use strict';
require('../dist/cli.js')
  .main(process.argv)
  .catch((err) => {
    process.stderr.write(`mailbridge: ${err?.message ? err.message : err}\n`);
    process.exit(1);
  });
