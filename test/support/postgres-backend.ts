// jest setupFiles of the postgres project: the harness and the store tests of this project run on PostgreSQL.
import { BACKEND_ENV } from './postgres';

process.env[BACKEND_ENV] = 'postgres';
