#!/usr/bin/env -S node --expose-gc
'use strict';
require('../dist/cli.js')
  .main(process.argv)
  .catch((err) => {
    process.stderr.write(`mailbridge: ${err?.message ? err.message : err}\n`);
    process.exit(1);
  });
