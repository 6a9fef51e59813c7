// What the configuration turns off that an operator must know about: said once at start, and on /readyz for as
// long as the service runs, so a protection switched off for a local try-out is not forgotten in production.
import type { Config } from './config';

/** One sentence per protection that is off; none for a configuration that keeps them all. */
export function configurationWarnings(config: Pick<Config, 'allowPrivateUrls'>): string[] {
  const warnings: string[] = [];
  if (config.allowPrivateUrls) {
    warnings.push(
      'JOBHOOKS_ALLOW_PRIVATE_URLS is on: webhooks may point at loopback, private and link-local addresses, which is meant for local development and tests, not production.',
    );
  }
  return warnings;
}
