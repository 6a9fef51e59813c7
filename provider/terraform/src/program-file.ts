/** The bundled provider (build-program.js), in dist/ and beside the executable in each mirror folder. */
export const PROGRAM_FILE_NAME = 'provider-program.js';
/** What the executable runs after its sh line (src/program-start.ts, bundled). */
export const START_FILE_NAME = 'provider-start.js';
