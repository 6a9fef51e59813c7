// @jobhooks/terraform-provider: the provider Terraform runs (plugin protocol 6) and its installer.
export {
  DEFAULT_PROVIDER_VERSION,
  type Installation,
  installTerraformProvider,
  type InstallTarget,
  type InstallOptions,
  type LockedFolder,
  PROVIDER_ADDRESS,
} from './install';
export { type LockOutcome } from './lock';
export { type CommandResult, INSTALL_USAGE, runInstallCommand } from './install-command';
