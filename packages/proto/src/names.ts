// Plain names of wire enums (e.g. TerminationClass.ENV_ERROR <-> "ENV_ERROR"), read from the
// generated descriptors so they never drift from the .proto files.
import { TerminationClassSchema, type TerminationClass } from './gen/owrl/v1/trajectory_pb.js';

const PREFIX = 'TERMINATION_CLASS_';

/** "COMPLETED", "ENV_ERROR", ...; "UNSPECIFIED" for 0 or an unknown value. */
export function terminationClassName(c: TerminationClass | undefined): string {
  const v = TerminationClassSchema.values.find((x) => x.number === (c ?? 0));
  return v ? v.name.slice(PREFIX.length) : 'UNSPECIFIED';
}

/** Inverse of {@link terminationClassName}; throws RangeError naming the value. */
export function terminationClassFromName(name: string): TerminationClass {
  const v = TerminationClassSchema.values.find((x) => x.name === PREFIX + name);
  if (!v || v.number === 0) throw new RangeError(`unknown termination class ${JSON.stringify(name)}`);
  return v.number as TerminationClass;
}
