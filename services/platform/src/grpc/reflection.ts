import { create, createRegistry, toBinary, type DescFile, type MessageInitShape } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { ServerReflection, ServerReflectionResponseSchema, type ServerReflectionRequest } from "@svc/proto/grpc/reflection/v1/reflection_pb";

/**
 * grpc.reflection.v1 from the descriptors protoc-gen-es embedded in the generated code, so
 * grpcurl, `buf curl` and other generic clients can discover and call a service. Connect-ES
 * ships no reflection package; the protocol is small enough to answer here.
 */
export function registerReflection(router: ConnectRouter, files: DescFile[], serviceNames: string[]) {
  const registry = createRegistry(...files);
  const filesByName = new Map(allFiles(files).map((file) => [file.name + ".proto", file]));
  const answer = (request: ServerReflectionRequest): Answer => {
    const message = request.messageRequest;
    const filesResponse = (file: DescFile | undefined): Answer =>
      file
        ? { case: "fileDescriptorResponse", value: { fileDescriptorProto: withDependencies(file).map(serialize) } }
        : { case: "errorResponse", value: { errorCode: NOT_FOUND, errorMessage: "not found" } };
    switch (message.case) {
      case "listServices":
        return { case: "listServicesResponse", value: { service: serviceNames.map((name) => ({ name })) } };
      case "fileByFilename":
        return filesResponse(filesByName.get(message.value));
      case "fileContainingSymbol": {
        // A method's full name (pkg.Service.Method) resolves through its service.
        const symbol = registry.get(message.value) ?? registry.get(message.value.replace(/\.[^.]+$/, ""));
        return filesResponse(symbol?.file);
      }
      // Our protos declare no extensions: no file holds one, and every known type has none.
      case "fileContainingExtension":
        return { case: "errorResponse", value: { errorCode: NOT_FOUND, errorMessage: "no extensions are declared" } };
      case "allExtensionNumbersOfType":
        return registry.getMessage(message.value)
          ? { case: "allExtensionNumbersResponse", value: { baseTypeName: message.value, extensionNumber: [] } }
          : { case: "errorResponse", value: { errorCode: NOT_FOUND, errorMessage: "not found" } };
      default:
        return { case: "errorResponse", value: { errorCode: INVALID_ARGUMENT, errorMessage: "empty request" } };
    }
  };
  router.service(ServerReflection, {
    async *serverReflectionInfo(requests) {
      for await (const request of requests) {
        yield create(ServerReflectionResponseSchema, {
          validHost: request.host,
          originalRequest: request,
          messageResponse: answer(request),
        });
      }
    },
  });
}

type Answer = MessageInitShape<typeof ServerReflectionResponseSchema>["messageResponse"];

// gRPC status codes, as the reflection protocol reports them.
const INVALID_ARGUMENT = 3;
const NOT_FOUND = 5;

function allFiles(files: DescFile[]): DescFile[] {
  const seen = new Set<string>();
  return files.flatMap((file) => withDependencies(file, seen));
}

const serialize = (file: DescFile) => toBinary(FileDescriptorProtoSchema, file.proto);

function withDependencies(file: DescFile, seen = new Set<string>()): DescFile[] {
  if (seen.has(file.name)) return [];
  seen.add(file.name);
  return [file, ...file.dependencies.flatMap((dependency) => withDependencies(dependency, seen))];
}
