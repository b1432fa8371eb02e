// Errors of the wire-contract layer: undecodable bytes and unsupported schema versions.

export const ProtoErrorCode = {
  Undecodable: 'PROTO_UNDECODABLE',
  UnsupportedSchemaVersion: 'PROTO_UNSUPPORTED_SCHEMA_VERSION',
  MissingField: 'PROTO_MISSING_FIELD',
} as const;
export type ProtoErrorCode = (typeof ProtoErrorCode)[keyof typeof ProtoErrorCode];

export class ProtoError extends Error {
  override readonly name = 'ProtoError';
  readonly code: ProtoErrorCode;
  /** Fully-qualified protobuf type the bytes were decoded as. */
  readonly typeName: string;

  constructor(code: ProtoErrorCode, typeName: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.typeName = typeName;
  }
}

export function isProtoError(e: unknown): e is ProtoError {
  return e instanceof ProtoError;
}
