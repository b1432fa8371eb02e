// Plain names of wire enums (e.g. TerminationClass.ENV_ERROR <-> "ENV_ERROR", EffectKind.NAVIGATED
// <- "navigated"), read from the generated descriptors so they never drift from the .proto files.
import type { DescEnum } from '@bufbuild/protobuf';
import { VerdictSourceSchema, type VerdictSource } from './gen/owrl/v1/scored_pb.js';
import { EffectKindSchema, TerminationClassSchema, type EffectKind, type TerminationClass } from './gen/owrl/v1/trajectory_pb.js';

const TERMINATION_PREFIX = 'TERMINATION_CLASS_';
const EFFECT_PREFIX = 'EFFECT_KIND_';
const VERDICT_SOURCE_PREFIX = 'VERDICT_SOURCE_';

function fromName(e: DescEnum, prefix: string, name: string, what: string): number {
  const v = e.values.find((x) => x.name === prefix + name.toUpperCase());
  if (!v || v.number === 0) throw new RangeError(`unknown ${what} ${JSON.stringify(name)}`);
  return v.number;
}

/** "COMPLETED", "ENV_ERROR", ...; "UNSPECIFIED" for 0 or an unknown value. */
export function terminationClassName(c: TerminationClass | undefined): string {
  const v = TerminationClassSchema.values.find((x) => x.number === (c ?? 0));
  return v ? v.name.slice(TERMINATION_PREFIX.length) : 'UNSPECIFIED';
}

/** Inverse of {@link terminationClassName}; throws RangeError naming the value. */
export function terminationClassFromName(name: string): TerminationClass {
  return fromName(TerminationClassSchema, TERMINATION_PREFIX, name, 'termination class') as TerminationClass;
}

/** Effect kind of a rendered label ("navigated", "value_mismatch", ...); throws RangeError naming it. */
export function effectKindFromName(name: string): EffectKind {
  return fromName(EffectKindSchema, EFFECT_PREFIX, name, 'effect kind') as EffectKind;
}

/** "format", "rule", "verifier", "model"; "unspecified" for 0 or an unknown value (metric labels, records). */
export function verdictSourceName(s: VerdictSource | undefined): string {
  const v = VerdictSourceSchema.values.find((x) => x.number === (s ?? 0));
  return (v ? v.name.slice(VERDICT_SOURCE_PREFIX.length) : 'UNSPECIFIED').toLowerCase();
}
