// gRPC server reflection from protobuf-es descriptors: answers grpc.reflection.v1 requests (list
// the services, the file that defines a symbol, a file by name) with serialized
// FileDescriptorProtos of the file and everything it imports, so a client such as grpcurl can
// call a server without its .proto files. Transport-free: the gRPC binding lives with the server.
import { create, toBinary, type DescEnum, type DescFile, type DescMessage, type DescService } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import {
  ServerReflectionResponseSchema,
  type ServerReflectionRequest,
  type ServerReflectionResponse,
} from './gen/grpc/reflection/v1/reflection_pb.js';

/** gRPC status codes used in reflection error responses. */
const NOT_FOUND = 5;
const UNIMPLEMENTED = 12;
const INVALID_ARGUMENT = 3;

export class ReflectionIndex {
  private readonly files = new Map<string, DescFile>();
  private readonly symbols = new Map<string, DescFile>();
  private readonly serviceNames: string[];

  /** `services`: the services the server offers (reflection itself included when it is served). */
  constructor(services: readonly DescService[]) {
    this.serviceNames = services.map((s) => s.typeName);
    for (const s of services) this.addFile(s.file);
  }

  private addFile(file: DescFile): void {
    // DescFile.name has no .proto suffix; reflection clients ask by the path (proto.name).
    if (this.files.has(file.proto.name)) return;
    this.files.set(file.proto.name, file);
    const addMessage = (m: DescMessage) => {
      this.symbols.set(m.typeName, file);
      m.nestedMessages.forEach(addMessage);
      m.nestedEnums.forEach((e: DescEnum) => this.symbols.set(e.typeName, file));
      m.nestedExtensions.forEach((x) => this.symbols.set(x.typeName, file));
    };
    file.messages.forEach(addMessage);
    file.enums.forEach((e) => this.symbols.set(e.typeName, file));
    file.extensions.forEach((x) => this.symbols.set(x.typeName, file));
    for (const s of file.services) {
      this.symbols.set(s.typeName, file);
      for (const m of s.methods) this.symbols.set(`${s.typeName}.${m.name}`, file);
    }
    file.dependencies.forEach((d) => this.addFile(d));
  }

  /** Fully qualified names of the offered services. */
  services(): string[] {
    return [...this.serviceNames];
  }

  /** The file and its transitive imports, the file first. */
  private closure(file: DescFile): DescFile[] {
    const out: DescFile[] = [];
    const seen = new Set<string>();
    const visit = (f: DescFile) => {
      if (seen.has(f.name)) return;
      seen.add(f.name);
      out.push(f);
      f.dependencies.forEach(visit);
    };
    visit(file);
    return out;
  }

  private fileResponse(req: ServerReflectionRequest, file: DescFile): ServerReflectionResponse {
    return create(ServerReflectionResponseSchema, {
      validHost: req.host,
      originalRequest: req,
      messageResponse: {
        case: 'fileDescriptorResponse',
        value: { fileDescriptorProto: this.closure(file).map((f) => toBinary(FileDescriptorProtoSchema, f.proto)) },
      },
    });
  }

  private error(req: ServerReflectionRequest, code: number, message: string): ServerReflectionResponse {
    return create(ServerReflectionResponseSchema, {
      validHost: req.host,
      originalRequest: req,
      messageResponse: { case: 'errorResponse', value: { errorCode: code, errorMessage: message } },
    });
  }

  /** The answer to one request of the ServerReflectionInfo stream. */
  answer(req: ServerReflectionRequest): ServerReflectionResponse {
    const r = req.messageRequest;
    switch (r.case) {
      case 'listServices':
        return create(ServerReflectionResponseSchema, {
          validHost: req.host,
          originalRequest: req,
          messageResponse: { case: 'listServicesResponse', value: { service: this.serviceNames.map((name) => ({ name })) } },
        });
      case 'fileByFilename': {
        const f = this.files.get(r.value);
        return f ? this.fileResponse(req, f) : this.error(req, NOT_FOUND, `file ${JSON.stringify(r.value)} is not known to this server`);
      }
      case 'fileContainingSymbol': {
        const f = this.symbols.get(r.value.replace(/^\./, ''));
        return f ? this.fileResponse(req, f) : this.error(req, NOT_FOUND, `symbol ${JSON.stringify(r.value)} is not known to this server`);
      }
      case 'fileContainingExtension':
        return this.error(req, NOT_FOUND, `no extension ${r.value.extensionNumber} of ${JSON.stringify(r.value.containingType)}: this server defines no extensions`);
      case 'allExtensionNumbersOfType':
        return this.symbols.has(r.value)
          ? create(ServerReflectionResponseSchema, {
              validHost: req.host,
              originalRequest: req,
              messageResponse: { case: 'allExtensionNumbersResponse', value: { baseTypeName: r.value, extensionNumber: [] } },
            })
          : this.error(req, NOT_FOUND, `type ${JSON.stringify(r.value)} is not known to this server`);
      case undefined:
        return this.error(req, INVALID_ARGUMENT, 'empty reflection request: set one of list_services, file_by_filename, file_containing_symbol');
      default:
        return this.error(req, UNIMPLEMENTED, 'unsupported reflection request');
    }
  }
}
