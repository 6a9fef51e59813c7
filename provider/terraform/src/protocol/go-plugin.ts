// go-plugin's controller service, as .proto source: kept in the program itself, so the provider needs no file beside it.
/* prettier-ignore */
export const GO_PLUGIN_PROTO = `// go-plugin's controller service (hashicorp/go-plugin internal/plugin/grpc_controller.proto, same names):
// Terraform calls Shutdown when it is done with a provider process.
syntax = "proto3";

package plugin;

message Empty {}

service GRPCController {
  rpc Shutdown(Empty) returns (Empty);
}
`;
