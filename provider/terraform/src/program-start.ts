// The program Terraform starts (after the mirror's sh line, src/mirror.ts): it runs the provider, which lies
// beside it in the same folder as provider-program.js, through the compiled-code cache (code-cache.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeCacheDir, runWithCodeCache } from './code-cache';
import { PROGRAM_FILE_NAME } from './program-file';

const programFile = join(__dirname, PROGRAM_FILE_NAME);
const run = runWithCodeCache(readFileSync(programFile, 'utf8'), programFile, codeCacheDir());
// A start that compiled the program saves at its exit, so the cache also holds the functions that start ran for
// Terraform's calls (the handshake's, the schema's), not only the program's first lines.
if (!run.fromCache) process.on('exit', () => run.save());
