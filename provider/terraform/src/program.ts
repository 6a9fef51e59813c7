// The provider program Terraform starts from the mirror; build-program.js bundles it, with everything it
// imports, into the one file that `install` lays out.
import { main } from './plugin-main';

main();
