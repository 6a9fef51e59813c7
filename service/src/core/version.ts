// The running build's version, for the User-Agent of deliveries and the OpenAPI document.
import { packageVersion } from './package-files';

export const VERSION: string = packageVersion();
