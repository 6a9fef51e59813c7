// `@jobhooks/pulumi/provider`: the module the provider host loads for every resource of this package (the
// serialized shell names it and the function that hands out the resource kind's provider).
export * from './webhook-provider';
export * from './operational-endpoint-provider';
