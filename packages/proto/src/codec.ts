// Binary encode/decode of the wire messages with schema-version enforcement: every top-level
// message carries `schema_version` (its major version); a decoder rejects majors it does not know.
import { create, fromBinary, toBinary, toJson, type DescMessage, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { ProtoError, ProtoErrorCode } from './errors.js';

/** Major schema version written by this build and the only one its decoders accept. */
export const SCHEMA_VERSION = 1;

type Versioned = { schemaVersion: number };

/** Creates a message with `schemaVersion` filled in. */
export function make<Desc extends DescMessage>(schema: Desc, init?: MessageInitShape<Desc>): MessageShape<Desc> {
  const msg = create(schema, init);
  if (hasSchemaVersion(schema)) (msg as unknown as Versioned).schemaVersion = SCHEMA_VERSION;
  return msg;
}

/** Whether each schema has a `schema_version` field, looked up once per schema (make() runs for every nested message too). */
const versioned = new WeakMap<DescMessage, boolean>();

function hasSchemaVersion(schema: DescMessage): boolean {
  let v = versioned.get(schema);
  if (v === undefined) {
    v = schema.fields.some((f) => f.name === 'schema_version');
    versioned.set(schema, v);
  }
  return v;
}

/** Encodes a message; sets `schemaVersion` when the caller left it at 0. */
export function encode<Desc extends DescMessage>(schema: Desc, msg: MessageShape<Desc>): Uint8Array {
  if (hasSchemaVersion(schema) && (msg as unknown as Versioned).schemaVersion === 0) {
    (msg as unknown as Versioned).schemaVersion = SCHEMA_VERSION;
  }
  return toBinary(schema, msg);
}

/** The tag and length that precede `len` bytes of length-delimited field `no` (a sub-message or bytes). */
export function lengthDelimitedHeader(no: number, len: number): Uint8Array {
  return new BinaryWriter().tag(no, WireType.LengthDelimited).uint32(len).finish();
}

/**
 * Encodes `msg` with the message field `field` taken from `fieldBytes` (that field's encoding as
 * received) instead of encoding its value again: a service forwarding a large message it was
 * delivered sends its bytes unchanged, unknown fields included. Protobuf reads a field wherever it
 * stands, so the result decodes exactly as the full encoding when `msg[field]` is the decoding of
 * `fieldBytes`.
 */
export function encodeWithField<Desc extends DescMessage>(schema: Desc, msg: MessageShape<Desc>, field: string, fieldBytes: Uint8Array): Uint8Array {
  const f = schema.fields.find((x) => x.localName === field);
  if (!f || f.fieldKind !== 'message') throw new TypeError(`${schema.typeName} has no message field ${JSON.stringify(field)}`);
  const head = encode(schema, { ...msg, [field]: undefined } as MessageShape<Desc>);
  const tag = lengthDelimitedHeader(f.number, fieldBytes.length);
  // One buffer, the field's bytes copied once (they are most of it).
  const out = new Uint8Array(head.length + tag.length + fieldBytes.length);
  out.set(head, 0);
  out.set(tag, head.length);
  out.set(fieldBytes, head.length + tag.length);
  return out;
}

/**
 * Decodes bytes as `schema`.
 * @throws ProtoError PROTO_UNDECODABLE when the bytes are not a valid message,
 *   PROTO_UNSUPPORTED_SCHEMA_VERSION when the message's major version is not {@link SCHEMA_VERSION}.
 */
export function decode<Desc extends DescMessage>(schema: Desc, bytes: Uint8Array): MessageShape<Desc> {
  let msg: MessageShape<Desc>;
  try {
    msg = fromBinary(schema, bytes);
  } catch (cause) {
    throw new ProtoError(
      ProtoErrorCode.Undecodable,
      schema.typeName,
      `cannot decode ${bytes.length} bytes as ${schema.typeName}: ${(cause as Error).message}`,
      { cause },
    );
  }
  if (hasSchemaVersion(schema)) {
    const v = (msg as unknown as Versioned).schemaVersion;
    if (v !== SCHEMA_VERSION) {
      throw new ProtoError(
        ProtoErrorCode.UnsupportedSchemaVersion,
        schema.typeName,
        `${schema.typeName}.schema_version is ${v}, this build understands only major version ${SCHEMA_VERSION}`,
      );
    }
  }
  return msg;
}

/** JSON form (proto3 JSON mapping) for logs, CLI output and JSONL files. */
export function toPlainJson<Desc extends DescMessage>(schema: Desc, msg: MessageShape<Desc>): unknown {
  return toJson(schema, msg, { alwaysEmitImplicit: false });
}
