#!/usr/bin/env node
// `jobhooks-dbt`: runs dbt Core and posts dbt Cloud's job-run events to jobhooks (see the package README).
'use strict';
const { runFromProcess } = require('../dist/index.js');

runFromProcess();
