#!/usr/bin/env node
// `jobhooks-as-code`: validate, plan, apply and import webhooks declared in YAML (see the package README).
'use strict';
const { runFromProcess } = require('../dist/index.js');

runFromProcess();
