// jest setupFiles of the "postgres, two instances" project: the harness runs two services on each test's
// database, and its requests alternate between them (test/support/harness.ts).
import { INSTANCES_ENV } from './postgres';

process.env[INSTANCES_ENV] = '2';
