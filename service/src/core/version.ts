// The running build's version, for the User-Agent of deliveries and the OpenAPI document.
import packageJson from '../../../package.json';

export const VERSION: string = packageJson.version;
