// Terraform's plugin protocol 6 (the parts this provider serves), as .proto source: kept in the program itself, so the provider needs no file beside it.
/* prettier-ignore */
export const TFPLUGIN6_PROTO = `// The parts of Terraform's plugin protocol 6.8 (Terraform 1.11) that the jobhooks provider serves.
//
// Written for this project from the wire facts of the published definition
// (hashicorp/terraform docs/plugin-protocol/tfplugin6.8.proto): package, service, message and field
// names, field numbers and types are those of 6.8, so Terraform's messages decode here and ours decode
// there. Messages and fields this provider never reads or writes are left out; protobuf skips unknown
// fields, and an RPC left out answers UNIMPLEMENTED, which Terraform accepts for GetMetadata and only
// calls for features (moves, ephemeral resources, functions) this provider does not declare.
syntax = "proto3";

package tfplugin6;

// A Terraform value: msgpack (what Terraform sends and what we answer) or JSON.
message DynamicValue {
  bytes msgpack = 1;
  bytes json = 2;
}

message Diagnostic {
  enum Severity {
    INVALID = 0;
    ERROR = 1;
    WARNING = 2;
  }
  Severity severity = 1;
  string summary = 2;
  string detail = 3;
  AttributePath attribute = 4;
}

message AttributePath {
  message Step {
    oneof selector {
      string attribute_name = 1;
      string element_key_string = 2;
      int64 element_key_int = 3;
    }
  }
  repeated Step steps = 1;
}

message StopProvider {
  message Request {}
  message Response {
    string Error = 1;
  }
}

message RawState {
  bytes json = 1;
  map<string, string> flatmap = 2;
}

enum StringKind {
  PLAIN = 0;
  MARKDOWN = 1;
}

message Schema {
  message Block {
    int64 version = 1;
    repeated Attribute attributes = 2;
    string description = 4;
    StringKind description_kind = 5;
    bool deprecated = 6;
  }

  message Attribute {
    string name = 1;
    // The attribute's type as JSON, e.g. "string" or ["list","number"].
    bytes type = 2;
    string description = 3;
    bool required = 4;
    bool optional = 5;
    bool computed = 6;
    bool sensitive = 7;
    StringKind description_kind = 8;
    bool deprecated = 9;
  }

  int64 version = 1;
  Block block = 2;
}

message ServerCapabilities {
  bool plan_destroy = 1;
  bool get_provider_schema_optional = 2;
  bool move_resource_state = 3;
}

message ClientCapabilities {
  bool deferral_allowed = 1;
  bool write_only_attributes_allowed = 2;
}

service Provider {
  rpc GetMetadata(GetMetadata.Request) returns (GetMetadata.Response);
  rpc GetProviderSchema(GetProviderSchema.Request) returns (GetProviderSchema.Response);
  rpc ValidateProviderConfig(ValidateProviderConfig.Request) returns (ValidateProviderConfig.Response);
  rpc ValidateResourceConfig(ValidateResourceConfig.Request) returns (ValidateResourceConfig.Response);
  rpc ValidateDataResourceConfig(ValidateDataResourceConfig.Request) returns (ValidateDataResourceConfig.Response);
  rpc UpgradeResourceState(UpgradeResourceState.Request) returns (UpgradeResourceState.Response);
  rpc ConfigureProvider(ConfigureProvider.Request) returns (ConfigureProvider.Response);
  rpc ReadResource(ReadResource.Request) returns (ReadResource.Response);
  rpc PlanResourceChange(PlanResourceChange.Request) returns (PlanResourceChange.Response);
  rpc ApplyResourceChange(ApplyResourceChange.Request) returns (ApplyResourceChange.Response);
  rpc ImportResourceState(ImportResourceState.Request) returns (ImportResourceState.Response);
  rpc ReadDataSource(ReadDataSource.Request) returns (ReadDataSource.Response);
  rpc GetFunctions(GetFunctions.Request) returns (GetFunctions.Response);
  rpc StopProvider(StopProvider.Request) returns (StopProvider.Response);
}

message GetMetadata {
  message Request {}
  message Response {
    ServerCapabilities server_capabilities = 1;
    repeated Diagnostic diagnostics = 2;
    repeated DataSourceMetadata data_sources = 3;
    repeated ResourceMetadata resources = 4;
  }
  message DataSourceMetadata {
    string type_name = 1;
  }
  message ResourceMetadata {
    string type_name = 1;
  }
}

message GetProviderSchema {
  message Request {}
  message Response {
    Schema provider = 1;
    map<string, Schema> resource_schemas = 2;
    map<string, Schema> data_source_schemas = 3;
    repeated Diagnostic diagnostics = 4;
    ServerCapabilities server_capabilities = 6;
  }
}

message ValidateProviderConfig {
  message Request {
    DynamicValue config = 1;
  }
  message Response {
    repeated Diagnostic diagnostics = 2;
  }
}

message UpgradeResourceState {
  message Request {
    string type_name = 1;
    int64 version = 2;
    RawState raw_state = 3;
  }
  message Response {
    DynamicValue upgraded_state = 1;
    repeated Diagnostic diagnostics = 2;
  }
}

message ValidateResourceConfig {
  message Request {
    string type_name = 1;
    DynamicValue config = 2;
  }
  message Response {
    repeated Diagnostic diagnostics = 1;
  }
}

message ValidateDataResourceConfig {
  message Request {
    string type_name = 1;
    DynamicValue config = 2;
  }
  message Response {
    repeated Diagnostic diagnostics = 1;
  }
}

message ConfigureProvider {
  message Request {
    string terraform_version = 1;
    DynamicValue config = 2;
    ClientCapabilities client_capabilities = 3;
  }
  message Response {
    repeated Diagnostic diagnostics = 1;
  }
}

message ReadResource {
  message Request {
    string type_name = 1;
    DynamicValue current_state = 2;
    bytes private = 3;
    DynamicValue provider_meta = 4;
    ClientCapabilities client_capabilities = 5;
  }
  message Response {
    DynamicValue new_state = 1;
    repeated Diagnostic diagnostics = 2;
    bytes private = 3;
  }
}

message PlanResourceChange {
  message Request {
    string type_name = 1;
    DynamicValue prior_state = 2;
    DynamicValue proposed_new_state = 3;
    DynamicValue config = 4;
    bytes prior_private = 5;
    DynamicValue provider_meta = 6;
    ClientCapabilities client_capabilities = 7;
  }
  message Response {
    DynamicValue planned_state = 1;
    repeated AttributePath requires_replace = 2;
    bytes planned_private = 3;
    repeated Diagnostic diagnostics = 4;
  }
}

message ApplyResourceChange {
  message Request {
    string type_name = 1;
    DynamicValue prior_state = 2;
    DynamicValue planned_state = 3;
    DynamicValue config = 4;
    bytes planned_private = 5;
    DynamicValue provider_meta = 6;
  }
  message Response {
    DynamicValue new_state = 1;
    bytes private = 2;
    repeated Diagnostic diagnostics = 3;
  }
}

message ImportResourceState {
  message Request {
    string type_name = 1;
    string id = 2;
    ClientCapabilities client_capabilities = 3;
  }
  message ImportedResource {
    string type_name = 1;
    DynamicValue state = 2;
    bytes private = 3;
  }
  message Response {
    repeated ImportedResource imported_resources = 1;
    repeated Diagnostic diagnostics = 2;
  }
}

message ReadDataSource {
  message Request {
    string type_name = 1;
    DynamicValue config = 2;
    DynamicValue provider_meta = 3;
    ClientCapabilities client_capabilities = 4;
  }
  message Response {
    DynamicValue state = 1;
    repeated Diagnostic diagnostics = 2;
  }
}

// Declared so Terraform's function discovery gets an empty answer rather than an error.
message GetFunctions {
  message Request {}
  message Response {
    repeated Diagnostic diagnostics = 2;
  }
}
`;
