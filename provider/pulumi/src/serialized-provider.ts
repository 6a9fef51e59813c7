// The provider as Pulumi serializes it into the state, for every resource class of this package: only a module
// name, the name of the function that hands out the kind's provider, and a loader are captured.
import type * as pulumi from '@pulumi/pulumi';

/**
 * The module the provider host loads, by package name. The state keeps the serialized provider, so a name
 * (resolved where the program's node_modules are) keeps a stack working after the project moves or
 * reinstalls, where a file path would not.
 */
export const PROVIDER_MODULE = '@jobhooks/pulumi/provider';

/** The functions of PROVIDER_MODULE that hand out one provider per process, by resource kind. */
export type SharedProvider = 'sharedWebhookProvider' | 'sharedOperationalEndpointProvider';

/**
 * The provider as Pulumi serializes it. Capturing the client or the schemas directly would make Pulumi serialize
 * them by value, which breaks on native handles and classes.
 */
export function serializableProvider(
  moduleName: string = PROVIDER_MODULE,
  shared: SharedProvider = 'sharedWebhookProvider',
): pulumi.dynamic.ResourceProvider {
  // No state of its own: Pulumi copies captured variables into each serialized function.
  const load = () =>
    (require(moduleName) as Record<SharedProvider, () => pulumi.dynamic.ResourceProvider>)[
      shared
    ]() as Required<pulumi.dynamic.ResourceProvider>;
  return {
    configure: (request) => load().configure(request),
    check: (olds, news) => load().check(olds, news),
    diff: (id, olds, news) => load().diff(id, olds, news),
    create: (inputs) => load().create(inputs),
    read: (id, props) => load().read(id, props),
    update: (id, olds, news) => load().update(id, olds, news),
    delete: (id, props) => load().delete(id, props),
  };
}
