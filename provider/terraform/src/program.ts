// The provider program Terraform runs from the mirror (through program-start.ts); build-program.js bundles it,
// with everything it imports, into the one file that `install` lays out beside the executable.
import { main } from './plugin-main';

main();
