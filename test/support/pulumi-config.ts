// The stack configuration the Pulumi tests hand a provider, as the engine does in configure(): the test service's
// API, account 1 and the admin token, under the provider's own `jobhooks:*` keys.
import type * as pulumi from '@pulumi/pulumi';
import { ADMIN_TOKEN } from './harness';

export function stackConfig(hostUrl: string): { get(key: string): string | undefined; require(key: string): string } {
  const values: Record<string, string> = {
    'jobhooks:baseUrl': hostUrl,
    'jobhooks:accountId': '1',
    'jobhooks:token': ADMIN_TOKEN,
  };
  return { get: (key) => values[key], require: (key) => values[key]! };
}

/** `provider` configured for the test service, with every method the engine may call. */
export async function configured(
  provider: pulumi.dynamic.ResourceProvider,
  hostUrl: string,
): Promise<Required<pulumi.dynamic.ResourceProvider>> {
  await provider.configure!({ config: stackConfig(hostUrl) });
  return provider as Required<pulumi.dynamic.ResourceProvider>;
}
