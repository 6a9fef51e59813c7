// The contract: every request and response shape of the API, shared by the service, the client and the IaC tools.
export * from './vocabulary';
export * from './limits';
export * from './delivery-rules';
export * from './client-url';
export * from './envelope';
export * from './paging';
export * from './webhook';
export * from './operational';
export * from './account';
export * from './event';
export * from './delivery';
export * from './retry-after';
export * from './managed-marker';
export * from './statistics';
export * from './field-sentence';
