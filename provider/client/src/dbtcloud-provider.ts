// The public Terraform provider whose interface jobhooks serves, named once for every front end: the Terraform
// provider installs itself under this address and version, and the CDKTF/CDK Terrain stacks require it.
export const DBTCLOUD_PROVIDER_SOURCE = 'dbt-labs/dbtcloud';
export const DBTCLOUD_PROVIDER_ADDRESS = `registry.terraform.io/${DBTCLOUD_PROVIDER_SOURCE}`;
/** The public provider release whose resources and attributes jobhooks' own provider matches. */
export const DBTCLOUD_PROVIDER_VERSION = '1.12.0';
/** What a stack requires: that release or a later 1.x, so the same stack also works with the public provider. */
export const DBTCLOUD_PROVIDER_CONSTRAINT = '~> 1.12';
