// Errors of the wire-contract layer: undecodable bytes and unsupported schema versions.
import { OwrlError } from '@owrl/core';

export const ProtoErrorCode = {
  Undecodable: 'PROTO_UNDECODABLE',
  UnsupportedSchemaVersion: 'PROTO_UNSUPPORTED_SCHEMA_VERSION',
  MissingField: 'PROTO_MISSING_FIELD',
} as const;
export type ProtoErrorCode = (typeof ProtoErrorCode)[keyof typeof ProtoErrorCode];

export class ProtoError extends OwrlError<ProtoErrorCode> {
  override readonly name = 'ProtoError';
  /** Fully-qualified protobuf type the bytes were decoded as. */
  readonly typeName: string;

  constructor(code: ProtoErrorCode, typeName: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.typeName = typeName;
  }
}

export function isProtoError(e: unknown, code?: ProtoErrorCode): e is ProtoError {
  return e instanceof ProtoError && (code === undefined || e.code === code);
}
